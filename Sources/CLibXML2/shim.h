#ifndef BOOKRULE_CLIBXML2_SHIM_H
#define BOOKRULE_CLIBXML2_SHIM_H

/* Debian's libxml2 is built with ICU, whose headers clash with the copy of ICU inside Foundation
   ('UErrorCode' has different definitions) in any module that imports both. bookrule only handles
   xmlCharEncodingHandler through pointers, so leaving its ICU fields out of view is harmless. */
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/HTMLparser.h>
#include <libxml/HTMLtree.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <libxml/xmlerror.h>
#include <libxml/tree.h>
#include <libxml/xmlversion.h>
#include <libxml/parserInternals.h>

/// `xmlFree` is a global function pointer, which Swift 6 rejects as not concurrency-safe.
static inline void bookrule_xmlFree(void *pointer) { xmlFree(pointer); }

/// libxml2 prints some errors (an unknown XPath function at evaluation) through its per-thread "generic" error
/// function, straight to stderr. A variadic C callback cannot be written in Swift, so this one lives here.
static void bookrule_ignore_generic_error(void *context, const char *message, ...) {
    (void)context;
    (void)message;
}

/// Routes this thread's generic libxml2 errors to `bookrule_ignore_generic_error` (structured errors, which
/// carry the same information, are captured separately).
static inline void bookrule_silence_generic_errors(void) {
    xmlSetGenericErrorFunc(NULL, bookrule_ignore_generic_error);
}

/// This thread's libxml2 error handlers and their contexts. `xmlStructuredError` and friends are macros over
/// per-thread storage, which Swift cannot read, so saving and restoring happens here: an app that installed
/// its own handlers gets them back after each bookrule call.
typedef struct {
    xmlStructuredErrorFunc structured;
    void *structuredContext;
    xmlGenericErrorFunc generic;
    void *genericContext;
} bookrule_xml_error_handlers;

static inline bookrule_xml_error_handlers bookrule_save_error_handlers(void) {
    bookrule_xml_error_handlers saved = {
        xmlStructuredError, xmlStructuredErrorContext, xmlGenericError, xmlGenericErrorContext
    };
    return saved;
}

static inline void bookrule_restore_error_handlers(bookrule_xml_error_handlers saved) {
    xmlSetGenericErrorFunc(saved.genericContext, saved.generic);
    xmlSetStructuredErrorFunc(saved.structuredContext, saved.structured);
}

/// Sets how deep libxml2 lets markup nest before it stops reading a page (default 256). Real pages with
/// hundreds of unclosed `<font>` or `<div>` tags exceed the default; XML_PARSE_HUGE would lift the limit
/// entirely, but the HTML parser's time grows with the square of the depth (a million unclosed tags took
/// 45 s). `xmlParserMaxDepth` is a plain global: set it once, before any parsing starts.
static inline void bookrule_set_parser_max_depth(unsigned int depth) { xmlParserMaxDepth = depth; }

/// `xmlParserVersion` is a macro in some builds; the dotted version string is a plain literal.
static inline const char *bookrule_libxml2_version(void) { return LIBXML_DOTTED_VERSION; }

#endif
