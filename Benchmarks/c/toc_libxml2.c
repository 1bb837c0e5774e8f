/*
 * Raw libxml2 reference for the bookrule TOC benchmark.
 *
 *   toc_libxml2 FILE ENCODING ITERATIONS
 *
 * The file is read into memory once (not timed). Each timed iteration does the
 * full job: htmlReadMemory -> evaluate the pre-compiled XPath -> for every
 * chapter <a>: xmlNodeGetContent (name, unmodified) + href resolved with
 * xmlBuildURI(href, PAGE_URL) -> free everything. One untimed warm-up first.
 *
 * Output: libxml2-c <label> median_ms=<x> min_ms=<y> chapters=<n> checksum=<bytes>
 *   label    = basename of FILE without ".html"
 *   checksum = sum over chapters of strlen(name) + strlen(resolved url)
 *              (UTF-8 byte lengths, libxml2 strings are UTF-8)
 *
 * TOC_IDLE_THREAD=1 starts one thread that only sleeps, before the first iteration: glibc's malloc then
 * locks its arena for every allocation its per-thread cache cannot serve, as it does in any process with
 * threads (every Swift program using concurrency, bookrule included). The label gets a "+thread" suffix.
 *
 * Build: cc -O2 -o toc_libxml2 toc_libxml2.c $(pkg-config --cflags --libs libxml-2.0) -lpthread
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>
#include <unistd.h>

#include <libxml/HTMLparser.h>
#include <libxml/tree.h>
#include <libxml/uri.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>

static const char *PAGE_URL = "https://www.example-novel.test/book/1234/";
static const char *CHAPTER_XPATH =
    "//div[@class='listmain']/dl/dt[2]/following-sibling::dd/a";

static void *sleep_forever(void *unused) {
    (void)unused;
    for (;;) pause();
    return NULL;
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One full parse + extract. Returns chapter count (or -1), adds bytes to *checksum. */
static long run_once(const char *buf, int len, const char *encoding,
                     xmlXPathCompExprPtr comp, unsigned long long *checksum) {
    htmlDocPtr doc = htmlReadMemory(buf, len, PAGE_URL, encoding,
                                    HTML_PARSE_RECOVER | HTML_PARSE_NOERROR |
                                    HTML_PARSE_NOWARNING | HTML_PARSE_NONET);
    if (doc == NULL) return -1;
    xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
    xmlXPathObjectPtr res = xmlXPathCompiledEval(comp, ctx);
    long count = 0;
    unsigned long long sum = 0;
    if (res != NULL && res->type == XPATH_NODESET && res->nodesetval != NULL) {
        xmlNodeSetPtr ns = res->nodesetval;
        for (int i = 0; i < ns->nodeNr; i++) {
            xmlNodePtr a = ns->nodeTab[i];
            xmlChar *name = xmlNodeGetContent(a);
            xmlChar *href = xmlGetProp(a, BAD_CAST "href");
            xmlChar *url = href ? xmlBuildURI(href, BAD_CAST PAGE_URL) : NULL;
            if (name) sum += strlen((const char *)name);
            if (url) sum += strlen((const char *)url);
            xmlFree(name);
            xmlFree(href);
            xmlFree(url);
            count++;
        }
    }
    xmlXPathFreeObject(res);
    xmlXPathFreeContext(ctx);
    xmlFreeDoc(doc);
    *checksum = sum;
    return count;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s FILE ENCODING ITERATIONS\n", argv[0]);
        return 2;
    }
    const char *path = argv[1], *encoding = argv[2];
    int iters = atoi(argv[3]);
    if (iters < 1) iters = 1;

    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); return 1; }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)len);
    if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) { perror("read"); return 1; }
    fclose(f);

    int idle_thread = getenv("TOC_IDLE_THREAD") != NULL && strcmp(getenv("TOC_IDLE_THREAD"), "1") == 0;
    if (idle_thread) {
        pthread_t thread;
        if (pthread_create(&thread, NULL, sleep_forever, NULL) != 0) { fprintf(stderr, "pthread_create failed\n"); return 1; }
    }

    xmlInitParser();
    xmlXPathCompExprPtr comp = xmlXPathCompile(BAD_CAST CHAPTER_XPATH);
    if (!comp) { fprintf(stderr, "xpath compile failed\n"); return 1; }

    unsigned long long checksum = 0;
    long chapters = run_once(buf, (int)len, encoding, comp, &checksum); /* warm-up */
    if (chapters < 0) { fprintf(stderr, "parse failed\n"); return 1; }

    double *t = malloc(sizeof(double) * (size_t)iters);
    for (int i = 0; i < iters; i++) {
        unsigned long long c = 0;
        double t0 = now_ms();
        long n = run_once(buf, (int)len, encoding, comp, &c);
        t[i] = now_ms() - t0;
        if (n != chapters || c != checksum) {
            fprintf(stderr, "inconsistent result in iteration %d\n", i);
            return 1;
        }
    }
    qsort(t, (size_t)iters, sizeof(double), cmp_double);
    double median = (iters % 2) ? t[iters / 2] : (t[iters / 2 - 1] + t[iters / 2]) / 2.0;

    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char label[256];
    snprintf(label, sizeof label, "%s", base);
    size_t ll = strlen(label);
    if (ll > 5 && strcmp(label + ll - 5, ".html") == 0) label[ll - 5] = '\0';

    printf("%s %s median_ms=%.3f min_ms=%.3f chapters=%ld checksum=%llu\n",
           idle_thread ? "libxml2-c+thread" : "libxml2-c", label, median, t[0], chapters, checksum);

    if (getenv("TOC_DUMP")) { /* debug: print first N chapters (name \t url) */
        int want = atoi(getenv("TOC_DUMP"));
        htmlDocPtr doc = htmlReadMemory(buf, (int)len, PAGE_URL, encoding,
                                        HTML_PARSE_RECOVER | HTML_PARSE_NOERROR |
                                        HTML_PARSE_NOWARNING | HTML_PARSE_NONET);
        xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
        xmlXPathObjectPtr res = xmlXPathCompiledEval(comp, ctx);
        for (int i = 0; res && res->nodesetval && i < res->nodesetval->nodeNr && i < want; i++) {
            xmlNodePtr a = res->nodesetval->nodeTab[i];
            xmlChar *name = xmlNodeGetContent(a), *href = xmlGetProp(a, BAD_CAST "href");
            xmlChar *url = xmlBuildURI(href, BAD_CAST PAGE_URL);
            printf("%s\t%s\n", name, url);
            xmlFree(name); xmlFree(href); xmlFree(url);
        }
        xmlXPathFreeObject(res); xmlXPathFreeContext(ctx); xmlFreeDoc(doc);
    }

    free(t);
    xmlXPathFreeCompExpr(comp);
    free(buf);
    xmlCleanupParser();
    return 0;
}
