// SDL2 for the Window module (the only Swift module that imports CSDL2), plus inline helpers
// for what Swift cannot import (function-like macros).
#ifndef INTERLUDE_CSDL2_SHIM_H
#define INTERLUDE_CSDL2_SHIM_H

#include <SDL2/SDL.h>

/// SDL_WINDOWPOS_CENTERED, a function-like macro underneath.
static inline int interlude_sdl_windowpos_centered(void) { return (int)SDL_WINDOWPOS_CENTERED; }

/// AUDIO_F32SYS: 32-bit float samples in the machine's byte order.
static inline SDL_AudioFormat interlude_sdl_audio_f32sys(void) { return AUDIO_F32SYS; }

#endif
