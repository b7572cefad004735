// The facts (facts.hpp) of tally/directml.hpp's own declarations of DirectML's types:
// no DirectML.h is included here. Only sizes, offsets and values are taken, and no
// tally::directml function is called, so nothing of this file's DirectML types reaches
// the linker next to real_header.cpp's.
#include <tally/directml.hpp>

#include "facts.hpp"

static_assert(TALLY_DIRECTML_NATIVE == 0, "tally declares DirectML's types here");

TALLY_DIRECTML_MEMBER_TYPES_BASE;
TALLY_DIRECTML_MEMBER_TYPES_CUMULATIVE(DML_CUMULATIVE_SUMMATION_OPERATOR_DESC, HasExclusiveSum);
TALLY_DIRECTML_MEMBER_TYPES_CUMULATIVE(DML_CUMULATIVE_PRODUCT_OPERATOR_DESC, HasExclusiveProduct);

const tally_test::directml_fact* tally_test::tally_declaration_facts(std::size_t& count) {
  static const directml_fact facts[] = {TALLY_DIRECTML_FACTS(TALLY_DIRECTML_FACT_ENTRY)};
  count = sizeof facts / sizeof facts[0];
  return facts;
}
