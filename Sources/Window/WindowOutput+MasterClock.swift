import Playback

/// A window that plays audio masters the player's real-time clock, as ffplay's audio clock does.
extension WindowOutput: AudioMasterClock {}
