// Playback module.
