#!/usr/bin/env python3
"""Writes binary_matches_kernel.test: random printf cases, each printed by
printf (a binary record, formatted by xtap-run) and by print(sprintf(...))
(the kernel's vsnprintf), which must give the same line. Re-run after
changing the case mix: python3 tests/runtime/printf/gen_binary_matches_kernel.py"""
import os
import random

rng = random.Random(10)
cases = []
for _ in range(160):
    conv = rng.choice("diuxXocsp")
    flags = "".join(f for f in "-+ #0" if rng.random() < 0.3)
    width = rng.choice(["", "", str(rng.randint(1, 24)), "*"])
    prec = rng.choice(["", "", "." + str(rng.randint(0, 20)), ".*"])
    args = []
    if width == "*":
        args.append(str(rng.choice([-3, 0, 5, 12])))
    if prec == ".*":
        args.append(str(rng.choice([-1, 0, 3, 9])))
    if conv == "s":
        args.append('"' + rng.choice(["", "x", "hello", "a longer string value"]) + '"')
    elif conv == "c":
        args.append(str(rng.randint(33, 126)))
    else:
        args.append(str(rng.choice([0, 1, -1, 7, 255, -4096, 123456789, 9223372036854775807,
                                    -9223372036854775808, rng.randint(-10**12, 10**12)])))
    fmt = f"<%{flags}{width}{prec}{conv}>"
    a = ", ".join(args)
    cases.append(f'    printf("{fmt}\\n", {a}); print(sprintf("{fmt}", {a}), "\\n")')
body = "\n".join(cases)
text = f"""NAME printf through binary records (formatted by xtap-run) prints what the kernel's vsnprintf prints (sprintf), on 160 random conversions
PROG probe begin {{
{body}
    exit()
  }}
EXPECT_REGEX \\A(?:(.*)\\n\\1\\n){{{len(cases)}}}\\Z
"""
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "binary_matches_kernel.test")
open(out, "w").write(text)
