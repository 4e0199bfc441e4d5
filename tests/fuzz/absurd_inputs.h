// Scripts of absurd sizes (issue 11): each must end in its clear error, or
// none, within the regression driver's time limit, and never overflow the
// stack. Generated here rather than kept as files (one is 10 MB).
#pragma once

#include <string>
#include <vector>

namespace xtap::fuzz {

struct AbsurdInput {
  std::string name;
  std::string text;
  std::string expect_code;  // the first error's code; "" for no error, "*" for any outcome
};

std::vector<AbsurdInput> absurd_inputs();

}  // namespace xtap::fuzz
