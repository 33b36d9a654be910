// The one C header of Interlude: FFmpeg's public headers, and small inline helpers for what
// Swift cannot import (function-like macros, AVERROR codes, chapter allocation).
#ifndef INTERLUDE_CFFMPEG_SHIM_H
#define INTERLUDE_CFFMPEG_SHIM_H

#include <errno.h>
#include <string.h>
#include <libavformat/avformat.h>
#include <libavformat/avio.h>
#include <libavcodec/avcodec.h>
#include <libavcodec/bsf.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavutil/aes.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/cpu.h>
#include <libavutil/display.h>
#include <libavutil/error.h>
#include <libavutil/hash.h>
#include <libavutil/imgutils.h>
#include <libavutil/mathematics.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libavutil/samplefmt.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>

static inline int interlude_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int interlude_averror_eof(void) { return AVERROR_EOF; }
static inline int interlude_averror_enomem(void) { return AVERROR(ENOMEM); }
static inline int interlude_averror_einval(void) { return AVERROR(EINVAL); }
static inline int64_t interlude_nopts(void) { return AV_NOPTS_VALUE; }
static inline int interlude_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }

/// Rotation in degrees (counter-clockwise, as av_display_rotation_get returns) from a stream's
/// display matrix side data; NAN when there is none.
static inline double interlude_stream_rotation(const AVStream *st) {
    const uint8_t *sd = av_stream_get_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, NULL);
    if (!sd) return NAN;
    return av_display_rotation_get((const int32_t *)sd);
}

/// 1 when the stream's display matrix mirrors horizontally (determinant < 0).
static inline int interlude_stream_hflip(const AVStream *st) {
    const int32_t *m = (const int32_t *)av_stream_get_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, NULL);
    if (!m) return 0;
    double det = (double)m[0] * m[4] - (double)m[1] * m[3];
    return det < 0;
}

/// Appends a chapter to a muxer context (FFmpeg keeps its own helper for this private). Returns 0 or a negative AVERROR.
static inline int interlude_add_chapter(AVFormatContext *s, int64_t id, AVRational tb,
                                        int64_t start, int64_t end, const char *title) {
    AVChapter **chapters = av_realloc_array(s->chapters, s->nb_chapters + 1, sizeof(*chapters));
    if (!chapters) return AVERROR(ENOMEM);
    s->chapters = chapters;
    AVChapter *c = av_mallocz(sizeof(*c));
    if (!c) return AVERROR(ENOMEM);
    c->id = id; c->time_base = tb; c->start = start; c->end = end;
    if (title && av_dict_set(&c->metadata, "title", title, 0) < 0) { av_free(c); return AVERROR(ENOMEM); }
    s->chapters[s->nb_chapters++] = c;
    return 0;
}

#endif
