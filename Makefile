# bookrule: the two commands a fresh machine needs are `make demo` and `make test`.
SWIFT ?= swift
BOOKRULE = .build/debug/bookrule
EXAMPLE = Sources-json/example-gbk.json
EXAMPLE_HAR = Fixtures/example-gbk/site.har
EXAMPLE_SITE = http://127.0.0.1:8791

.PHONY: deps build demo test sanitize sanitize-thread bench record-fixtures clean

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

test: deps
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors
	$(SWIFT) test --skip-build

# The concurrency tests under sanitizers, each in a build directory of its own so the ordinary debug build is
# left alone (docs/testing.md). A sanitizer's report fails the run.
sanitize: sanitize-thread

# ThreadSanitizer: data races in Swift code. libxml2, SQLite and libcurl are not instrumented, so races inside
# them are only seen where Swift mirrors their writes (CompiledXPath.evaluations).
SANITIZE_THREAD_FILTER = Concurren|oneInstanceSharedAcrossTasks|LibraryStoreTests|PoliteFetchingTests|BlockingWork
sanitize-thread: deps
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build/tsan
	TSAN_OPTIONS=halt_on_error=1 $(SWIFT) test --skip-build --sanitize=thread --scratch-path .build/tsan \
		--filter '$(SANITIZE_THREAD_FILTER)'

bench:
	@scripts/install-deps.sh --bench
	Benchmarks/run.sh

record-fixtures: deps
	scripts/record-fixtures.sh

clean:
	rm -rf .build Benchmarks/out Benchmarks/bin
