// main.cpp - the one translation unit that holds Catch2's main() for the
// unit tests (cgp_unit_tests); every other file in tests/unit only has
// TEST_CASEs, so they compile faster.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
