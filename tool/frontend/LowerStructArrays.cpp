//===- LowerStructArrays.cpp - arrays of structs --------------------------===//
#include "frontend/Lowering.h"

namespace cgp {

std::optional<Lowering::RecordView> Lowering::structElement(const clang::Expr *) {
  return std::nullopt;
}

} // namespace cgp
