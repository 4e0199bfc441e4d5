// uadd_rebuilt N [WHO]: uadd built once more with one more string, so that
// its build-id differs: tests/runtime/uprobe/build_id_mismatch*.test
// translate against this file and run with uadd copied over it.
#include "uadd.c"

__attribute__((used)) static const char uadd_rebuilt_tag[] = "rebuilt";
