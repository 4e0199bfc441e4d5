#!/usr/bin/env python3
"""The tapset-reference runner's own logic, without systemtap-doc: man page
synopses parsed into items and the scripts written for them (ctest
tapset_reference_runner)."""

import gzip
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference  # noqa: E402

PAGE = """.SH "NAME"
function::%s \\- x
.SH "SYNOPSIS"
.sp
.nf
%s
.fi
.SH "ARGUMENTS"
%s
.SH SEE ALSO
"""


def write(d, name, synopsis, body=""):
    with gzip.open(os.path.join(d, name + ".3stap.gz"), "wt") as f:
        f.write(PAGE % (name, synopsis, body))


def main():
    failures = 0

    def check(what, got, want):
        nonlocal failures
        if got != want:
            print(f"FAIL {what}: got {got!r}, want {want!r}")
            failures += 1

    with tempfile.TemporaryDirectory() as d:
        write(d, "function::strpos", "    strpos:long(s1:string,s2:string)")
        write(d, "function::kernel_string",
              "    1) kernel_string:string(addr:long)\n    2) kernel_string:string(addr:long,err_msg:string)")
        write(d, "function::set_kernel_int", "    set_kernel_int(addr:long,val:long)",
              "Requires the use of guru mode (\\-g)\\&.")
        write(d, "function::broken", "")
        with gzip.open(os.path.join(d, "probe::nfs.fop.open.3stap.gz"), "wt") as f:
            f.write('.SH "SYNOPSIS"\n.nf\nnfs\\&.fop\\&.open\n.fi\n')
        items, unusable = reference.all_items(d)
        ids = [i.id for i in items]
        check("ids", ids, ["function::kernel_string(long)", "function::kernel_string(long,string)",
                           "function::set_kernel_int(long,long)", "function::strpos(string,string)",
                           "probe::nfs.fop.open"])
        check("unusable", unusable, ["broken"])
        by_id = {i.id: i for i in items}
        check("long script", by_id["function::strpos(string,string)"].script(),
              'probe begin { printf("%d\\n", strpos("", "")) }\n')
        check("string script", by_id["function::kernel_string(long,string)"].script(),
              'probe begin { printf("%s\\n", kernel_string(0, "")) }\n')
        check("void script", by_id["function::set_kernel_int(long,long)"].script(),
              "probe begin { set_kernel_int(0, 0) }\n")
        check("guru", by_id["function::set_kernel_int(long,long)"].options(), ["-g"])
        check("not guru", by_id["function::strpos(string,string)"].options(), [])
        check("probe script", by_id["probe::nfs.fop.open"].script(), "probe nfs.fop.open { }\n")
        lst = os.path.join(d, "list.txt")
        with open(lst, "w") as f:
            f.write("# c\nfunction::a(long) why it fails\n\nprobe::b\n")
        check("read_list", reference.read_list(lst), {"function::a(long)": "why it fails", "probe::b": ""})
    print("tapset_reference_runner: " + ("ok" if not failures else f"{failures} failed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
