// Interlude module.
