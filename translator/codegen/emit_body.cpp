// Pass 3: probe handlers and script functions around their statements:
// the frame struct, prologue and epilogue, and a handler's lock set.
#include <algorithm>
#include <regex>

#include "codegen/body_emitter.h"

namespace xtap {
namespace {

struct Frame {
  std::string decl;  // struct definition
  size_t bytes = 0;  // estimated size
  std::string zero;  // C expression: the bytes to clear on entry (the locals)
};

Frame frame_struct(const std::string &type, const Body &b, size_t string_temps,
                   unsigned maxstringlen) {
  CWriter w;
  w.open(type + " {");
  size_t bytes = 16;
  for (const auto &l : b.locals) {
    if (l->type == Type::String) {
      w.line("char l_" + l->name + "[MAXSTRINGLEN];");
      bytes += maxstringlen;
    } else {
      w.line("s64 l_" + l->name + ";");
      bytes += 8;
    }
  }
  for (size_t i = 0; i < string_temps; ++i)
    w.line("char t" + std::to_string(i) + "[MAXSTRINGLEN];");
  bytes += string_temps * maxstringlen;
  if (b.locals.empty() && string_temps == 0) w.line("char unused;");
  w.close("};");
  // Locals come first and start as 0 / ""; temporaries are written before
  // they are read, so only the locals are cleared.
  std::string zero = string_temps ? "offsetof(" + type + ", t0)" : "sizeof(" + type + ")";
  return {w.str(), bytes, zero};
}

}  // namespace

std::string function_c_name(const FunctionDecl &f) {
  return "xtap_fn_" + f.name + (f.overload ? "__" + std::to_string(f.overload) : "");
}

HandlerCode emit_handler(const Script &script, const ProbeDecl &probe, const std::string &name,
                         unsigned maxstringlen) {
  BodyEmitter be(script, probe, nullptr, maxstringlen);
  be.out().set_indent(1);
  if (probe.condition) {
    be.out().line("if (!" + be.truth(*probe.condition) + ")");
    be.out().line("\tgoto out;");
  }
  be.stmt(*probe.body);

  HandlerCode hc;
  std::string type = "struct " + name + "_frame";
  Frame fr = frame_struct(type, probe, be.string_temps(), maxstringlen);
  CWriter w;
  w.raw(fr.decl);
  w.line();
  w.line("static void " + name + "(struct xtap_context *c)");
  w.open("{");
  w.line(type + " *f = xtap_frame_push(c, sizeof(*f), " + fr.zero + ");");
  w.line();
  w.line("if (!f)");
  w.line("\treturn;");
  w.raw(be.out().str());
  w.line("out: __maybe_unused;");
  w.line("\txtap_frame_pop(c, sizeof(*f));");
  w.close();

  // Lock set: every global the probe touches, in declaration order (the
  // runtime takes them in this order), exclusive when written.
  // Adding to a statistic (<<<) only needs a shared lock: the runtime keeps
  // per-CPU aggregates; reading one aggregates them, which is exclusive.
  // Adding to a scalar statistic needs none, as in stap: its per-CPU parts
  // carry a sequence count for readers (runtime-kmod/stat.c).
  std::vector<const GlobalDecl *> used(probe.globals_read.begin(), probe.globals_read.end());
  auto only_added = [&](const GlobalDecl *g) {
    return g->type == Type::Stat && g->arity == 0 &&
           std::find(used.begin(), used.end(), g) == used.end() &&
           std::find(probe.globals_written.begin(), probe.globals_written.end(), g) ==
               probe.globals_written.end();
  };
  for (const auto *set : {&probe.globals_written, &probe.globals_aggregated})
    for (auto *g : *set)
      if (std::find(used.begin(), used.end(), g) == used.end() && !only_added(g)) used.push_back(g);
  std::sort(used.begin(), used.end(), [](auto *a, auto *b) { return a->index < b->index; });
  auto exclusive = [&](const GlobalDecl *g) {
    auto has = [&](const std::vector<GlobalDecl *> &v) {
      return std::find(v.begin(), v.end(), g) != v.end();
    };
    if (g->type == Type::Stat) return has(probe.globals_read) || has(probe.globals_written);
    return has(probe.globals_written);
  };
  if (!used.empty()) {
    hc.lock_table = name + "_locks";
    w.open("static const struct xtap_lock_req " + hc.lock_table + "[] = {");
    for (auto *g : used) {
      bool wr = exclusive(g);
      w.line("{ .global = " + std::to_string(g->index) + ", .write = " + (wr ? "1" : "0") +
             " }, /* " + g->name + " */");
    }
    w.close("};");
  } else {
    hc.lock_table = "NULL";
  }
  hc.nlocks = used.size();
  hc.frame_bytes = fr.bytes;
  hc.c = w.str();
  return hc;
}

namespace {

// "static s64 xtap_fn_f(struct xtap_context *c, s64 a_x)": string results
// go to a buffer the caller passes as `ret`. __maybe_unused: pass 2 may
// drop the only call (in a branch @defined made dead) after the function
// was kept, and GCC would warn (-Wunused-function).
std::string signature(const FunctionDecl &fn) {
  std::string params = "struct xtap_context *c";
  if (fn.return_type == Type::String) params += ", char *ret";
  for (const auto *p : fn.params) params += ", " + c_type_of(p->type) + "a_" + p->name;
  return "static __maybe_unused " + c_type_of(fn.return_type) + function_c_name(fn) + "(" + params +
         ")";
}

// Where `next` goes in a function (its frame, if any, already popped):
// the call's arguments to the next function of the overload chain, or the
// run-time error stap raises past the last one.
void next_overload_tail(CWriter &w, const FunctionDecl &fn, const std::string &fail) {
  w.line("next_overload: __maybe_unused;");
  if (const FunctionDecl *n = fn.next_overload) {
    std::string args = "c";
    if (fn.return_type == Type::String) args += ", ret";
    for (const auto *p : fn.params) args += ", a_" + p->name;
    w.line("\treturn " + function_c_name(*n) + "(" + args + ");");
  } else {
    w.line("\txtap_error(c, \"all functions exhausted in '" + fn.name + "' at " + fn.loc.str() +
           "\");");
    w.line("\treturn " + fail + ";");
  }
}

// A function whose body is C (tapsets, guru mode), with SystemTap's
// conventions: STAP_ARG_<name>, STAP_RETVALUE, STAP_RETURN(v), STAP_ERROR(),
// CONTEXT, and for C written for older stap releases THIS->name,
// THIS->__retvalue and CONTEXT->last_error. The deref_fault label is where
// kread() and the other macros of <xtap/stap_compat.h> go on a fault.
// It has no script locals, so no frame.
FunctionCode emit_embedded_function(const FunctionDecl &fn) {
  static const std::regex this_word("\\bTHIS\\b");
  static const std::regex last_error("\\bCONTEXT\\s*->\\s*last_error\\b");
  bool str = fn.return_type == Type::String;
  // THIS is a struct of the parameters and the return value, as stap's
  // was: made only when the C uses it, so that other bodies are unchanged.
  bool this_struct = std::regex_search(fn.embedded_c, this_word);
  FunctionCode fc;
  fc.prototype = signature(fn) + ";";
  CWriter w;
  w.line(signature(fn));
  w.open("{");
  if (!str) w.line("s64 ret = 0;");
  else w.line("ret[0] = '\\0';");
  if (this_struct) {
    std::string members, init;
    for (const auto *p : fn.params) {
      members += c_type_of(p->type) + p->name + "; ";
      init += "." + p->name + " = a_" + p->name + ", ";
    }
    members += str ? "char *__retvalue; " : "s64 __retvalue; ";
    init += str ? ".__retvalue = ret" : ".__retvalue = 0";
    w.line("struct { " + members + "} __this = { " + init + " }, *THIS __maybe_unused = &__this;");
    for (const auto *p : fn.params)
      w.line("#define STAP_ARG_" + p->name + " (THIS->" + p->name + ")");
    w.line("#define STAP_RETVALUE (THIS->__retvalue)");
  } else {
    for (const auto *p : fn.params) w.line("#define STAP_ARG_" + p->name + " a_" + p->name);
    w.line("#define STAP_RETVALUE ret");
  }
  w.line(str ? "#define STAP_RETURN(v) do { strscpy(STAP_RETVALUE, (v), MAXSTRINGLEN); goto out; } "
               "while (0)"
             : "#define STAP_RETURN(v) do { STAP_RETVALUE = (v); goto out; } while (0)");
  w.line("#define STAP_ERROR(...) do { xtap_error(c, __VA_ARGS__); goto out; } while (0)");
  bool next = fn.passes_on();
  if (next) w.line("#define STAP_NEXT goto next_overload");
  w.line("#define CONTEXT c");
  w.open("{");
  w.raw(std::regex_replace(fn.embedded_c, last_error, "CONTEXT->error"));
  w.line();
  w.close();
  w.line("goto out;");
  w.line("deref_fault: __maybe_unused;");
  w.line("out: __maybe_unused;");
  for (const auto *p : fn.params) w.line("#undef STAP_ARG_" + p->name);
  w.line("#undef STAP_RETVALUE");
  w.line("#undef STAP_RETURN");
  w.line("#undef STAP_ERROR");
  w.line("#undef CONTEXT");
  if (next) w.line("#undef STAP_NEXT");
  if (this_struct && !str) w.line("ret = THIS->__retvalue;");
  w.line("return ret;");
  if (next) next_overload_tail(w, fn, str ? "ret" : "0");
  w.close();
  fc.c = w.str();
  return fc;
}

}  // namespace

FunctionCode emit_function(const Script &script, const FunctionDecl &fn, unsigned maxstringlen) {
  if (fn.embedded) return emit_embedded_function(fn);
  BodyEmitter be(script, fn, &fn, maxstringlen);
  be.out().set_indent(1);
  be.stmt(*fn.body);

  bool str = fn.return_type == Type::String;
  FunctionCode fc;
  fc.prototype = signature(fn) + ";";
  std::string type = "struct " + function_c_name(fn) + "_frame";
  Frame fr = frame_struct(type, fn, be.string_temps(), maxstringlen);
  std::string fail = str ? "ret" : "0";
  CWriter w;
  w.raw(fr.decl);
  w.line();
  w.line(signature(fn));
  w.open("{");
  w.line(type + " *f;");
  if (!str) w.line("s64 ret = 0;");
  w.line();
  if (str) w.line("ret[0] = '\\0';");
  w.open("if (unlikely(++c->nesting > c->maxnesting)) {");
  w.line("c->nesting--;");
  w.line("xtap_error(c, \"MAXNESTING exceeded near identifier '" + fn.name + "' at " +
         fn.loc.str() + "\");");
  w.line("return " + fail + ";");
  w.close();
  w.line("f = xtap_frame_push(c, sizeof(*f), " + fr.zero + ");");
  w.open("if (!f) {");
  w.line("c->nesting--;");
  w.line("return " + fail + ";");
  w.close();
  for (const auto *p : fn.params) {
    if (p->type == Type::String) w.line("xtap_str_copy(f->l_" + p->name + ", a_" + p->name + ");");
    else w.line("f->l_" + p->name + " = a_" + p->name + ";");
  }
  w.raw(be.out().str());
  w.line("out: __maybe_unused;");
  w.line("\txtap_frame_pop(c, sizeof(*f));");
  w.line("\tc->nesting--;");
  w.line("\treturn ret;");
  if (fn.passes_on()) {
    w.line("next_overload_pop: __maybe_unused;");
    w.line("\txtap_frame_pop(c, sizeof(*f));");
    w.line("\tc->nesting--;");
    next_overload_tail(w, fn, fail);
  }
  w.close();
  fc.c = w.str();
  fc.frame_bytes = fr.bytes;
  return fc;
}

}  // namespace xtap
