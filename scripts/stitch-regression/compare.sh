#!/usr/bin/env bash
# compare.sh A B [-v]
#
# Compares two run.sh output folders case by case and prints one line per case:
#   CASE: same
#   CASE: DIFFERENT (what, what, …)
# What is compared (files written by run.sh):
#   rc        exit status
#   video     decoded video frames (video.framemd5)         } the promise: identical
#   audio     decoded audio samples (audio.framemd5)        }
#   report    normalised JSON report (report.norm.json)     }
#   stdout    normalised summary lines (stdout.txt)
#   stderr    normalised standard error (stderr.txt)
#   packets   encoded packets: md5, pts/dts, size, flags (packets.framemd5)
#   probe     ffprobe streams/format/chapters (probe.txt)
#   m3u8      normalised HLS playlist (index.m3u8.norm; HLS cases only)
#   bytes     sha256 of the output file(s) / HLS segments / companions written (bytes.sha256)
#   cache     names of the transcode-cache entries left behind (cache.txt; the cache key is the
#             SHA-256 of the ad and of the encoding profile, so a new name means a new profile)
# It warns when the two runs' env.txt (CPU count/affinity, FFmpeg) or media.sha256 differ.
# A case present in only one folder is "MISSING in A|B". Exit status: 0 when every case is
# the same, 1 otherwise. -v prints the first lines of each diff under the case.
set -u
A=${1:?usage: compare.sh A B [-v]}
B=${2:?usage: compare.sh A B [-v]}
VERBOSE=${3:-}
ITEMS="rc:rc video:video.framemd5 audio:audio.framemd5 report:report.norm.json stdout:stdout.txt stderr:stderr.txt packets:packets.framemd5 probe:probe.txt m3u8:index.m3u8.norm bytes:bytes.sha256 cache:cache.txt"

cases=$( (cat "$A/cases.txt" "$B/cases.txt" 2>/dev/null || true) | awk '!seen[$0]++')
[ -z "$cases" ] && { echo "no cases.txt in $A or $B"; exit 2; }
n_same=0; n_diff=0
printf '%s\n' "A: $A ($(grep -s bin= "$A/run-info.txt" | head -1))" "B: $B ($(grep -s bin= "$B/run-info.txt" | head -1))"
if { [ -e "$A/env.txt" ] || [ -e "$B/env.txt" ]; } && ! cmp -s "$A/env.txt" "$B/env.txt"; then
  echo "WARNING: the runs' machines differ (CPU count/affinity changes libx264's thread count and so its output):"
  diff "$A/env.txt" "$B/env.txt" 2>&1 | sed 's/^/  /'
fi
if [ -e "$A/media.sha256" ] && [ -e "$B/media.sha256" ] && ! cmp -s "$A/media.sha256" "$B/media.sha256"; then
  echo "WARNING: the runs used different media (run both on one media folder):"
  diff "$A/media.sha256" "$B/media.sha256" 2>&1 | sed 's/^/  /'
fi
for c in $cases; do
  if [ ! -d "$A/$c" ]; then printf '%-32s MISSING in A\n' "$c:"; n_diff=$((n_diff+1)); continue; fi
  if [ ! -d "$B/$c" ]; then printf '%-32s MISSING in B\n' "$c:"; n_diff=$((n_diff+1)); continue; fi
  what=()
  for it in $ITEMS; do
    label=${it%%:*}; f=${it#*:}
    if [ ! -e "$A/$c/$f" ] && [ ! -e "$B/$c/$f" ]; then continue; fi
    if ! cmp -s "$A/$c/$f" "$B/$c/$f"; then
      case $label in
        rc) what+=("rc $(cat "$A/$c/rc" 2>/dev/null) vs $(cat "$B/$c/rc" 2>/dev/null)") ;;
        video|audio|packets)
          na=$(grep -vc '^#' "$A/$c/$f" 2>/dev/null); nb=$(grep -vc '^#' "$B/$c/$f" 2>/dev/null)
          first=$(diff <(grep -v '^#' "$A/$c/$f" 2>/dev/null) <(grep -v '^#' "$B/$c/$f" 2>/dev/null) | grep -m1 '^[<>]' | cut -c1-60)
          what+=("$label: $na vs $nb lines, first: ${first:-header}") ;;
        *) what+=("$label") ;;
      esac
    fi
  done
  if [ ${#what[@]} -eq 0 ]; then
    printf '%-32s same\n' "$c:"; n_same=$((n_same+1))
  else
    printf '%-32s DIFFERENT (%s)\n' "$c:" "$(IFS=';'; echo "${what[*]}" | sed 's/;/; /g')"; n_diff=$((n_diff+1))
    if [ "$VERBOSE" = -v ]; then
      for it in $ITEMS; do
        f=${it#*:}
        if [ -e "$A/$c/$f" ] || [ -e "$B/$c/$f" ]; then
          cmp -s "$A/$c/$f" "$B/$c/$f" || { echo "    --- $f"; diff "$A/$c/$f" "$B/$c/$f" 2>&1 | head -20 | sed 's/^/    /'; }
        fi
      done
    fi
  fi
done
echo "same: $n_same, different: $n_diff"
[ $n_diff -eq 0 ]
