// Package e2e holds KRaft Lab's end-to-end tests: they build the site with web/build, serve it
// with web/server on 127.0.0.1, and drive the page in a real headless Chromium through
// chromedp, checking what a reader would see (worker start-up, the Configs panel, validation
// messages, the cluster canvas, a broker killed and fenced, a config applied, the keyboard and
// the error panel) and saving screenshots under test-output/e2e/.
//
// The tests need Debian's chromium (apt-get install -y chromium). Without it they skip, except
// when CI=true, where a missing browser is a failure. Environment:
//
//	KRAFTLAB_CHROMIUM   browser binary to use instead of chromium from PATH
//	KRAFTLAB_E2E_DIST   an already built site to test instead of building one
//	KRAFTLAB_MEASURE    set to also log the frame costs at 10,000 and 100,000 partitions in
//	                    the browser (a measurement that takes about 10 s, never asserted)
//	KRAFTLAB_TRACE_DUMP a directory: the measurements that record a Chromium trace write its
//	                    events there as JSON, for a closer look
//	KRAFTLAB_BENCH_PAGE set to run TestBenchPage, the page's benchmark (make bench-page;
//	                    KRAFTLAB_BENCH_SITES and KRAFTLAB_BENCH_ONLY are documented there)
//
// The package has no non-test code.
package e2e
