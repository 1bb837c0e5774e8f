#ifndef BOOKRULE_CJAVASCRIPTCORE_SHIM_H
#define BOOKRULE_CJAVASCRIPTCORE_SHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <JavaScriptCore/JavaScript.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exported by libjavascriptcoregtk-4.1 but only declared in WebKit's private
   headers (JSContextRefPrivate.h / JSBasePrivate.h), which Debian does not ship. */

typedef bool (*JSShouldTerminateCallback)(JSContextRef ctx, void *context);

/* limit is in seconds. callback == NULL means: terminate as soon as the limit expires.
   If the callback returns false the limit is re-armed and the callback is asked again later. */
JS_EXPORT void JSContextGroupSetExecutionTimeLimit(JSContextGroupRef group, double limit,
                                                   JSShouldTerminateCallback callback,
                                                   void *context);
JS_EXPORT void JSContextGroupClearExecutionTimeLimit(JSContextGroupRef group);

/* Returns an object with heapSize, heapCapacity, extraMemorySize, objectCount,
   protectedObjectCount, globalObjectCount, protectedGlobalObjectCount (numbers). */
JS_EXPORT JSObjectRef JSGetMemoryUsageStatistics(JSContextRef ctx);

/* Tells the GC about malloc memory owned by JS objects (hint only, not a limit). */
JS_EXPORT void JSReportExtraMemoryCost(JSContextRef ctx, size_t size);

/* When disabled, eval() and Function() throw an EvalError carrying `message`. */
JS_EXPORT void JSGlobalContextSetEvalEnabled(JSGlobalContextRef ctx, bool enabled,
                                             JSStringRef message);

#ifdef __cplusplus
}
#endif

#endif
