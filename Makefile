# Interlude — build, test, demo and benchmark targets. `make help` lists them.
SHELL := /bin/bash
SWIFT ?= swift
PACKAGES := libfreetype-dev libcurl4-openssl-dev libavformat-dev libavcodec-dev libavfilter-dev libavutil-dev libswscale-dev libswresample-dev pkg-config ffmpeg \
            libsdl2-dev xvfb xdotool x11-apps fonts-dejavu-core strace \
            gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad \
            gstreamer1.0-libav python3-venv time \
            libmicrohttpd-dev wrk libhiredis-dev redis-server nginx \
            chromium vlc-bin vlc-plugin-base mpv openssl
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
SETUP_STAMP := .build/.setup-done

.PHONY: help setup build release test docs demo play serve cluster cluster-bench live-fleet live-check media conformance fuzz bench clean

help:
	@echo "make setup        install the Debian packages the build and tests need (only those missing)"
	@echo "make demo         build, stitch the bundled Media/ content with sample ads, print a summary"
	@echo "make play         build, play the bundled Media/ content with its ad rules in a window (SDL2)"
	@echo "make serve        build, serve Media/content.mp4 with Media/demo-vmap.xml over HLS (prints a URL)"
	@echo "make cluster      build, start redis, nginx, three serve nodes and two workers on 127.0.0.1 (prints the URL; Ctrl-C stops)"
	@echo "make cluster-bench  wrk through nginx against 1 node and 3 nodes: requests/s and p99"
	@echo "make live-fleet   a fleet serves one live channel to 1,000 simulated viewers, a node killed mid-break (VIEWERS=N)"
	@echo "make test         build and run the whole test suite, then the field check of its outputs"
	@echo "make live-check   the field's players play a live session (ads in SCTE-35 breaks), also under a slowloris soak, for LIVE_PLAY_SECONDS (default 180); and show they catch broken streams"
	@echo "make docs         build the library's documentation (DocC, from the symbol graphs) into .build/docs; fails on any warning"
	@echo "make media        regenerate the sample media in Media/ with the ffmpeg CLI"
	@echo "make conformance  run every document in ../shared/vast-corpus and print a table"
	@echo "make fuzz         run the libFuzzer targets (VAST/VMAP parser, ad-media open path)"
	@echo "make bench        release-build and run the benchmarks against the ffmpeg CLI"

# Installs only what is missing: a fresh Debian 12 machine has none of these. chromium, VLC (its
# command line and base plugins: no Qt) and mpv are the field check's players (scripts/field-check.sh;
# playbin3's hlsdemux2 is in gstreamer1.0-plugins-good; openssl's CLI is the independent AES-128
# the encrypted-origin tests check against); VLC will not run as root, and the script
# then runs it as the user nobody, which every Debian has, so no user is made here. Also a Python
# virtual environment with PyPI's threefive, the independent SCTE-35 parser the HLS tests use,
# m3u8, the independent playlist parser the serve tests use, and xmlschema, which validates MPDs
# against the DASH schema (Tests/Schemas), js.videojs, the web player Chromium plays DASH with, and
# streamlink, a DASH client for live sessions.
PYENV := .build/pyenv
setup: $(SETUP_STAMP) $(PYENV)/.threefive $(PYENV)/.m3u8 $(PYENV)/.xmlschema $(PYENV)/.videojs $(PYENV)/.streamlink
$(PYENV)/.threefive: | $(SETUP_STAMP)
	python3 -m venv $(PYENV) && $(PYENV)/bin/pip install -q threefive==3.1.5
	@touch $@
$(PYENV)/.m3u8: $(PYENV)/.threefive
	$(PYENV)/bin/pip install -q m3u8==6.0.0
	@touch $@
$(PYENV)/.xmlschema: $(PYENV)/.threefive
	$(PYENV)/bin/pip install -q xmlschema==3.4.3
	@touch $@
# Video.js 7.5.5 with its HLS/DASH engine (VHS): the web player headless Chromium plays DASH with
# in the field check (scripts/field-player.html); only its files are used (no Python deps)
$(PYENV)/.videojs: $(PYENV)/.threefive
	$(PYENV)/bin/pip install -q --no-deps js.videojs==7.5.5
	@touch $@
# Streamlink, a maintained DASH client that reads one Period: it plays a live session's
# one-Period MPD in the tests (ServeLiveStreamlinkTests)
$(PYENV)/.streamlink: $(PYENV)/.threefive
	$(PYENV)/bin/pip install -q streamlink==8.6.3
	@touch $@
$(SETUP_STAMP):
	@missing=""; for p in $(PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y $$missing; \
	fi
	@mkdir -p .build && touch $@

build: setup
	$(SWIFT) build

release: setup
	$(SWIFT) build -c release

# Tests write their outputs (some hundreds of MB of raw frame streams) under TEST_TMP, not /tmp:
# emptied at the start of each run, kept after it for a look at what a failing test wrote.
TEST_TMP := $(CURDIR)/.build/test-tmp

# The parallel passes run at most TEST_WIDTH (the service's, TEST_SERVE_WIDTH) tests at once
# (swift-testing's --experimental-maximum-parallelization-width). Started all at once, as
# swift-testing does by default, 490 tests on 2 cores took minutes each (one that takes 2 s
# alone took 3 min), so waits that catch a hang had to be minutes long; four at a time, every
# wait in the tests is 60 s at most (the first pass: 227 s here, against 197 s unbounded). The
# service's tests mostly wait on sockets and child processes: eight at a time is as fast as
# unbounded (52 s).
TEST_WIDTH ?= 4
TEST_SERVE_WIDTH ?= 8

# Suites run after the rest, one test at a time, because they need the whole process or real time
# undisturbed: PlayWindowCLITests types keys into a real-time window, which a loaded machine
# delays past the ad; AdUIOverlay*Tests click an overlay in a real-time session;
# ServeLivePlayTests and ServeEndToEndTests' players test play in real
# time in Chromium, VLC, mpv and GStreamer (frames dropped or stalls when late are counted); BlockedMainStitchTests holds the process's main thread while it stitches, which would
# hold every other suite's main-actor work; ClusterTests starts a whole fleet (redis-server,
# nginx, three serve nodes and two workers as processes), alone so that its nodes get the cores,
# and ClusterLiveTests a fleet of two nodes following a real-time live origin (about 65 s).
# Nothing is here for the main actor's sake: no frame loop and no ad decision waits for the main
# queue, so the main-actor suites (the guides, the native ad loaders, the player apps) run in the
# parallel pass.
TEST_SERIAL := ServeLivePlayTests|ServeLiveSharedStoreTests|ServeEndToEndTests/theFieldsPlayersPlayASession|Cluster[A-Za-z]*Tests|BlockedMainStitchTests|PlayWindowCLITests|AdUIOverlay[A-Za-z]*Tests

# After the tests pass, scripts/field-check.sh plays the MP4 and HLS outputs they kept (listed
# under FIELD_CHECK_DIR) and the demo in independent clients: ffmpeg -xerror and GStreamer.
TEST_ENV := TMPDIR=$(TEST_TMP) FIELD_CHECK_DIR=$(TEST_TMP)/field-check

# The service's suites (ServeTests) run in a pass of their own, in parallel among themselves: a
# request thread of the service waits for Swift's concurrency pool (the ad decision, the store's
# async calls), which the first pass's synchronous decode/encode tests would hold.
TEST_SERVE := Serve[A-Za-z]*Tests|Redis[A-Za-z]*Tests|RenditionTests

# In `make live-check` only: ServeFieldPlayersTests shows that each player of the field check
# plays the ffmpeg CLI's own streams clean and catches each broken copy it was seen to catch (a
# check of the checkers, not of Interlude's output: six real-time plays of about 20 s, 133 s).
TEST_LIVE_CHECK := ServeFieldPlayersTests

test: setup
	$(SWIFT) build --build-tests
	rm -rf $(TEST_TMP) && mkdir -p $(TEST_TMP)
	@# GStreamer's plugin registry, built before any test plays: the run that builds it prints each
	@# plugin's own init warnings (msdk, cuda, ladspa…), which the field checks would take as the
	@# stream's (a fresh machine, or plugins updated by apt)
	@gst-inspect-1.0 >/dev/null 2>&1 || true
	$(TEST_ENV) $(SWIFT) test --skip-build --experimental-maximum-parallelization-width $(TEST_WIDTH) --skip '$(TEST_SERIAL)|$(TEST_SERVE)|$(TEST_LIVE_CHECK)'
	$(TEST_ENV) $(SWIFT) test --skip-build --experimental-maximum-parallelization-width $(TEST_SERVE_WIDTH) --filter '$(TEST_SERVE)' --skip '$(TEST_SERIAL)|$(TEST_LIVE_CHECK)'
	$(TEST_ENV) $(SWIFT) test --skip-build --no-parallel --filter '$(TEST_SERIAL)'
	./scripts/field-check.sh $(TEST_TMP)

# The Interlude module's DocC catalog (Sources/Interlude/Interlude.docc) with the symbol graph of
# what `import Interlude` exposes; the articles' Swift listings must be the guide tests' code.
docs: setup
	@./scripts/docs.sh

demo: release
	@./scripts/demo.sh

play: release
	.build/release/interlude play Media/content.mp4 --ads Media/demo-vmap.xml

# A player (ffplay, VLC, GStreamer) pointed at the URL it prints gets a session of its own.
serve: release
	.build/release/interlude serve --listen 127.0.0.1:8080 --content demo=Media/content.mp4 --ads Media/demo-vmap.xml --store .build/serve-store

# The fleet of deploy/README.md on 127.0.0.1: Redis, nginx on :8080, nodes on :8081…8083, two workers.
cluster: release
	@./scripts/cluster.sh

cluster-bench: release
	@./scripts/cluster-bench.sh

live-fleet: release
	@./scripts/live-fleet.sh $(or $(VIEWERS),1000)

# The live players' check of `make test` (ServeLivePlayTests, 30 s there) for minutes: a live origin
# on 127.0.0.1 (2 s segments in real time, a break every 14 s in every signalling form), the
# service, ffmpeg -xerror, GStreamer, Chromium, VLC and mpv each on a session of their own, and
# Chromium and VLC again under a slowloris soak of the embedded server; then ServeFieldPlayersTests
# (each player catches the broken streams it should).
LIVE_PLAY_SECONDS ?= 180
live-check: setup
	$(SWIFT) build --build-tests
	mkdir -p $(TEST_TMP)
	@gst-inspect-1.0 >/dev/null 2>&1 || true   # the plugin registry built first (see test)
	LIVE_PLAY_SECONDS=$(LIVE_PLAY_SECONDS) $(TEST_ENV) $(SWIFT) test --skip-build --no-parallel --filter 'ServeLivePlayTests|$(TEST_LIVE_CHECK)'

media: setup
	@./scripts/make-media.sh

conformance: setup
	@./scripts/conformance.sh

fuzz: setup
	@./scripts/fuzz.sh

bench: release
	@./scripts/bench.sh

clean:
	rm -rf .build out bench-results/media
