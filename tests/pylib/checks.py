"""The PASS/FAIL tally the scripted Python tests share.

Each check prints one line, "PASS  what" or "FAIL  what" with the detail
indented below it (cut at 3000 characters); the test ends with its own
"NAME: N passed, N failed" line, which scripts/test.sh counts.

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "pylib"))
    from checks import Checks
"""


class Checks:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, ok, what, detail=""):
        if ok:
            self.passed += 1
            print(f"PASS  {what}")
        else:
            self.failed += 1
            print(f"FAIL  {what}")
            if detail:
                print("      " + detail.replace("\n", "\n      ")[:3000])
        return ok
