# bookrule: the two commands a fresh machine needs are `make demo` and `make test`.
SWIFT ?= swift
BOOKRULE = .build/debug/bookrule
EXAMPLE = Sources-json/example-gbk.json
EXAMPLE_HAR = Fixtures/example-gbk/site.har
EXAMPLE_SITE = http://127.0.0.1:8791

.PHONY: deps build demo test release share install uninstall deb sanitize sanitize-thread sanitize-address fuzz-build fuzz fuzz-all fuzz-corpus bench record-fixtures clean

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build

# Checks every example source offline against its recorded fixture (search -> book -> TOC -> chapters), shows
# one book's TOC and a chapter, then downloads a whole example book from its recording into a library in
# .build/demo and exports it as EPUB and TXT. No network is used.
demo: build
	$(BOOKRULE) lint Sources-json/*.json
	$(BOOKRULE) test Sources-json/*.json
	$(BOOKRULE) toc --source $(EXAMPLE) --replay $(EXAMPLE_HAR) $(EXAMPLE_SITE)/book/101/ | tail -n 4
	$(BOOKRULE) chapter --source $(EXAMPLE) --replay $(EXAMPLE_HAR) $(EXAMPLE_SITE)/book/101/1.html --next $(EXAMPLE_SITE)/book/101/2.html
	rm -rf .build/demo
	$(BOOKRULE) fetch --source $(EXAMPLE) --replay Fixtures/example-gbk/book.har $(EXAMPLE_SITE)/book/102/ \
		--library .build/demo/library.sqlite --epub -o .build/demo/
	$(BOOKRULE) export 长夜灯火 --txt -o .build/demo/ --library .build/demo/library.sqlite
	$(BOOKRULE) library --library .build/demo/library.sqlite

# The Swift suite decides first (make stops at its failure). The 1,200-chapter acceptance run (three bookrule
# processes at full speed for ~30-45 s) runs after the rest, not beside it: on two shared cores it starves the
# timing-bounded tests (docs/developing/testing.md); so do the suites that start headless Chromium (webView pages), which
# run on their own after it. Then the studio's browser test in headless Chromium, which says
# "skipped" with its reason where Chromium, chromedriver or Selenium is missing, and serve's (Legado's own web
# client against `bookrule serve`, docs/serve.md), then the bash completion made from the release binary's
# command table (scripts/test-completions.sh, a few seconds, offline). Before the suite, the whole package builds in
# release too (a packager's first command; `@testable` and debug-only code fail there, not in debug), which took
# 1.5–5 minutes with -j 1 on two loaded cores, and every import must be a declared dependency and every declared
# dependency imported (scripts/check-dependencies.py, a second, offline), and every test that measures
# wall-clock time tagged realTime (scripts/check-real-time-tests.py, docs/developing/testing.md).
test: deps
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors --explicit-target-dependency-import-check error
	scripts/check-dependencies.py
	scripts/check-real-time-tests.py
	$(SWIFT) build -c release -Xswiftc -warnings-as-errors
	scripts/run-tests.sh --skip ManySourcesAcceptanceTests --skip BookRuleBrowserTests --skip WebViewCommandTests
	scripts/run-tests.sh --filter ManySourcesAcceptanceTests
	scripts/run-tests.sh --filter 'BookRuleBrowserTests|WebViewCommandTests'
	scripts/studio-browser-test.py
	scripts/serve-browser-test.py
	scripts/test-completions.sh

# Installing (docs/packaging.md): `make install PREFIX=/usr/local DESTDIR=…` builds bookrule in release with the
# Swift runtime linked in (--static-swift-stdlib: nothing beside the binary, no toolchain on the machine; its web
# pages and scripts are compiled in) and installs it stripped, with the man page bookrule(1) and the bash, zsh
# and fish completions, all made from the binary's own command table (bookrule help --json), and the systemd
# user unit for `bookrule serve`.
# BOOKRULE_BIN=path installs a binary built already instead (no build). `make uninstall` with the same PREFIX
# and DESTDIR removes what it installed.
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR = $(PREFIX)/bin
MANDIR = $(PREFIX)/share/man/man1
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
SYSTEMDUSERDIR ?= $(PREFIX)/lib/systemd/user
RELEASE_BIN = .build/release/bookrule
BOOKRULE_BIN ?= $(RELEASE_BIN)
SHARE = .build/share

release:
	@if [ "$(BOOKRULE_BIN)" = "$(RELEASE_BIN)" ]; then \
		echo "$(SWIFT) build -c release --product bookrule --static-swift-stdlib"; \
		$(SWIFT) build -c release --product bookrule --static-swift-stdlib; fi

# The man page and completions, made from the binary's command table (bookrule help --json), so they never differ from its --help.
share: release
	mkdir -p $(SHARE)
	scripts/make-man.py $(BOOKRULE_BIN) | gzip -9n > $(SHARE)/bookrule.1.gz
	scripts/make-completions.py bash $(BOOKRULE_BIN) > $(SHARE)/bookrule.bash
	scripts/make-completions.py zsh $(BOOKRULE_BIN) > $(SHARE)/_bookrule
	scripts/make-completions.py fish $(BOOKRULE_BIN) > $(SHARE)/bookrule.fish
	sed 's|@BINDIR@|$(BINDIR)|g' contrib/bookrule-serve.service.in > $(SHARE)/bookrule-serve.service

install: share
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) \
		$(DESTDIR)$(FISHCOMPDIR) $(DESTDIR)$(SYSTEMDUSERDIR)
	install -m 755 -s $(BOOKRULE_BIN) $(DESTDIR)$(BINDIR)/bookrule
	install -m 644 $(SHARE)/bookrule.1.gz $(DESTDIR)$(MANDIR)/bookrule.1.gz
	install -m 644 $(SHARE)/bookrule.bash $(DESTDIR)$(BASHCOMPDIR)/bookrule
	install -m 644 $(SHARE)/_bookrule $(DESTDIR)$(ZSHCOMPDIR)/_bookrule
	install -m 644 $(SHARE)/bookrule.fish $(DESTDIR)$(FISHCOMPDIR)/bookrule.fish
	install -m 644 $(SHARE)/bookrule-serve.service $(DESTDIR)$(SYSTEMDUSERDIR)/bookrule-serve.service

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/bookrule $(DESTDIR)$(MANDIR)/bookrule.1.gz $(DESTDIR)$(BASHCOMPDIR)/bookrule \
		$(DESTDIR)$(ZSHCOMPDIR)/_bookrule $(DESTDIR)$(FISHCOMPDIR)/bookrule.fish \
		$(DESTDIR)$(SYSTEMDUSERDIR)/bookrule-serve.service

# A Debian package, .build/deb/bookrule_VERSION_ARCH.deb (`apt install ./bookrule_*.deb`): what `make install`
# puts under /usr (zsh's completion where Debian's zsh looks), with Depends: the packages owning the libraries
# the binary links (scripts/make-deb.sh). Check it with `dpkg-deb -I` and `dpkg-deb -c`.
deb:
	rm -rf .build/deb/root
	$(MAKE) --no-print-directory install PREFIX=/usr DESTDIR=$(CURDIR)/.build/deb/root \
		ZSHCOMPDIR=/usr/share/zsh/vendor-completions BOOKRULE_BIN=$(BOOKRULE_BIN)
	scripts/make-deb.sh .build/deb/root .build/deb

# The whole test suite under sanitizers, each in a build directory of its own so the ordinary debug build is
# left alone (docs/developing/testing.md). A sanitizer's report fails the run. Instrumented code is several times slower:
# the tests' time bounds and loopback servers' lifetimes stretch by SANITIZE_TIME_SCALE (TestSupport's TestTime);
# BOOKRULE_SANITIZER skips the few tests a sanitizer cannot run (the `ulimit -v` ones; TestTime.sanitizer). The
# suites run in the three parts `make test` runs, for the same reason: the acceptance run and headless Chromium
# starve the timing-bounded tests (under ThreadSanitizer, beside the rest, a page took its whole 60 s to load).
SANITIZE_TIME_SCALE = 6
sanitize: sanitize-thread sanitize-address

# ThreadSanitizer: data races in Swift code, the whole test suite (the instrumented bookrule too, run by the CLI
# tests), in .build/tsan. libxml2, SQLite and libcurl are not instrumented, so races inside them are only seen
# where Swift mirrors their writes (CompiledXPath.evaluations).
TSAN_RUN = TSAN_OPTIONS=halt_on_error=1 BOOKRULE_SANITIZER=thread BOOKRULE_TEST_TIME_SCALE=$(SANITIZE_TIME_SCALE)
sanitize-thread: deps
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build/tsan
	$(TSAN_RUN) scripts/run-tests.sh --sanitize=thread --scratch-path .build/tsan --skip ManySourcesAcceptanceTests --skip BookRuleBrowserTests --skip WebViewCommandTests
	$(TSAN_RUN) scripts/run-tests.sh --sanitize=thread --scratch-path .build/tsan --filter ManySourcesAcceptanceTests
	$(TSAN_RUN) scripts/run-tests.sh --sanitize=thread --scratch-path .build/tsan --filter 'BookRuleBrowserTests|WebViewCommandTests'

# AddressSanitizer: the whole test suite, in .build/asan. Swift code is instrumented; the C libraries are not, so
# their own overruns are only caught where Swift hands them a bad buffer. Leak checking at exit is off: see
# docs/developing/testing.md for what it reports and why (the fuzz targets check leaks per input instead). One
# report in the toolchain's Foundation is suppressed, exactly: scripts/sanitizers/asan-suppressions.txt says
# which, why, and how to reproduce it.
ASAN_RUN = ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:suppressions=$(CURDIR)/scripts/sanitizers/asan-suppressions.txt \
	BOOKRULE_SANITIZER=address BOOKRULE_TEST_TIME_SCALE=$(SANITIZE_TIME_SCALE)
sanitize-address: deps
	$(SWIFT) build --build-tests --sanitize=address --scratch-path .build/asan
	$(ASAN_RUN) scripts/run-tests.sh --sanitize=address --scratch-path .build/asan --skip ManySourcesAcceptanceTests --skip BookRuleBrowserTests --skip WebViewCommandTests
	$(ASAN_RUN) scripts/run-tests.sh --sanitize=address --scratch-path .build/asan --filter ManySourcesAcceptanceTests
	$(ASAN_RUN) scripts/run-tests.sh --sanitize=address --scratch-path .build/asan --filter 'BookRuleBrowserTests|WebViewCommandTests'

# Fuzzing (docs/reliability.md): libFuzzer targets in the Fuzz/ package, built with the toolchain's own libFuzzer
# and AddressSanitizer. `make fuzz TARGET=rule SECONDS=600` runs one target niced; new inputs go to
# .build/fuzz/corpus/<target> (Fuzz/Corpus/<target>, the committed seeds, is only read), crashes to
# .build/fuzz/artifacts/<target>/. Over 1 s per input is a hang.
FUZZ_TARGETS = json source rule css jsonpath url html har headers script fixture studio font
TARGET ?= rule
SECONDS ?= 60
FUZZ_DICT_rule = rules
FUZZ_DICT_css = rules
FUZZ_DICT_url = rules
FUZZ_DICT_html = html
FUZZ_DICT_json = json
FUZZ_DICT_source = json
FUZZ_DICT_har = json
FUZZ_DICT_fixture = fixture
FUZZ_DICT_jsonpath = rules
FUZZ_DICT_script = js
FUZZ_DICT_studio = html
# Longest input per target (libFuzzer otherwise stops at the longest seed).
FUZZ_MAXLEN_html = 32768
FUZZ_MAXLEN_har = 65536
FUZZ_MAXLEN_fixture = 16384
FUZZ_MAXLEN_json = 16384
FUZZ_MAXLEN_source = 16384
FUZZ_MAXLEN_headers = 1024
FUZZ_MAXLEN_studio = 8192
# A hang is an input over FUZZ_TIMEOUT seconds of wall time; inputs over 1 s are reported as slow units
# (replay them unloaded: `Fuzz/.build/debug/fuzz-<target> FILE`). On a loaded shared machine a 1 s alarm
# fires on inputs that take 0.1 s alone, so the alarm is looser than the 1 s each input must meet.
FUZZ_TIMEOUT ?= 5
# A snippet's 100 ms CPU limit is wall seconds for a niced fuzzer that gets 2% of a core under load.
FUZZ_TIMEOUT_script = 30
FUZZ_OPTIONS = -max_len=$(or $(FUZZ_MAXLEN_$(TARGET)),4096) -timeout=$(or $(FUZZ_TIMEOUT_$(TARGET)),$(FUZZ_TIMEOUT)) -report_slow_units=1 -rss_limit_mb=2048 -print_final_stats=1

fuzz-build:
	@scripts/install-deps.sh --fuzz
	nice -n 10 $(SWIFT) build -c debug -Xswiftc -sanitize=fuzzer,address --package-path Fuzz

fuzz: fuzz-build
	@test -d Fuzz/Corpus/$(TARGET) || { echo "no target $(TARGET); one of: $(FUZZ_TARGETS)" >&2; exit 2; }
	mkdir -p .build/fuzz/corpus/$(TARGET) .build/fuzz/artifacts/$(TARGET)
	SWIFT_BACKTRACE=enable=no LSAN_OPTIONS=leak_check_at_exit=0:suppressions=Fuzz/lsan.supp nice -n 10 Fuzz/.build/debug/fuzz-$(TARGET) $(FUZZ_OPTIONS) -max_total_time=$(SECONDS) \
		$(if $(FUZZ_DICT_$(TARGET)),-dict=Fuzz/Dictionaries/$(FUZZ_DICT_$(TARGET)).dict) \
		-artifact_prefix=.build/fuzz/artifacts/$(TARGET)/ .build/fuzz/corpus/$(TARGET) Fuzz/Corpus/$(TARGET) \
		> .build/fuzz/$(TARGET).log 2>&1; status=$$?; \
		grep -v '^#[0-9]*[[:space:]]*\(NEW\|REDUCE\|RELOAD\)\|^"\|Uses:' .build/fuzz/$(TARGET).log | tail -n 40; \
		exit $$status

# Every target in turn, SECONDS each (one at a time: the machine is shared). A finding in one target does not
# stop the others; the run fails at the end, naming the targets with findings.
fuzz-all: fuzz-build
	@failed=""; for target in $(FUZZ_TARGETS); do \
		$(MAKE) --no-print-directory fuzz TARGET=$$target SECONDS=$(SECONDS) || failed="$$failed $$target"; done; \
	if [ -n "$$failed" ]; then echo "fuzz-all: findings in:$$failed (inputs in .build/fuzz/artifacts/)" >&2; exit 1; fi

# Rewrites the seeds from the shared Legado corpus, the saved pages and Fixtures/.
fuzz-corpus:
	Fuzz/make-corpus.py

bench:
	@scripts/install-deps.sh --bench
	Benchmarks/run.sh

record-fixtures: deps
	scripts/record-fixtures.sh

# The API documentation (CONTRIBUTING.md): the package built with make test's flags, each module's public symbol
# graph (swift package dump-symbol-graph), then the toolchain's own docc per module the BookRule umbrella
# re-exports, into .build/docs/<Module>/, with a landing page, .build/docs/index.html. Not part of `make test`.
.PHONY: docs
docs: deps
	SWIFT=$(SWIFT) scripts/make-docs.sh

clean:
	rm -rf .build Benchmarks/out Benchmarks/bin
