// FreeType 2 for the text drawn on the surface (ad UI, native layouts). Only the Draw module imports it.
#ifndef INTERLUDE_CFREETYPE_SHIM_H
#define INTERLUDE_CFREETYPE_SHIM_H
#include <ft2build.h>
#include FT_FREETYPE_H
#endif
