/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The xtap runtime API: everything generated script C may call.
 *
 * A script module is thin generated C (one file) linked with the runtime
 * objects, which are compiled once per target kernel. The generated file
 * describes the script in a struct xtap_script and hands it to
 * xtap_session_init() from its module_init; the runtime does the rest
 * (control channel, relay, probe registration, locking, limits).
 *
 * Limits are values in the descriptor, not compile-time macros, so that
 * -D MAXACTION=... does not force the runtime to be recompiled. The one
 * exception is string storage: generated code sizes its buffers with its own
 * MAXSTRINGLEN and tells the runtime that size in xtap_limits.maxstringlen.
 */
#ifndef XTAP_RUNTIME_H
#define XTAP_RUNTIME_H

/*
 * The API in layers, each header including only those below it:
 *   context.h   a run's context, limits, errors, frame stack
 *   data.h      maps, statistics, regular expressions   (context.h)
 *   builtins.h  output, strings, builtin functions      (context.h)
 *   script.h    struct xtap_script, the session         (context.h)
 *   families.h  the probe families' specs and helpers   (script.h)
 */
#include <xtap/abi.h>
#include <xtap/memory.h>
#include <xtap/syscall_decode.h>
#include <xtap/context.h>
#include <xtap/data.h>
#include <xtap/builtins.h>
#include <xtap/script.h>
#include <xtap/families.h>
#include <xtap/tapset_funcs.h>

#endif /* XTAP_RUNTIME_H */
