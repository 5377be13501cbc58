//===- LowerCuda.cpp - CUDA device code in the kernel IR ------------------===//
//
// A `__global__` kernel or `__device__` function is lowered like any other:
// what is particular to device code is small. The builtin variables
// (`threadIdx.x`, `blockIdx.y`, `blockDim.x`, `gridDim.x`) are unsigned
// integers read as they are: no derivative flows through them. A user's
// `atomicAdd(&y[i], v);` is the statement `y[i] += v` marked atomic, which
// generated code writes as an atomicAdd again; its adjoint reads d_y[i]
// (threads only add, so each one's share is the whole adjoint). A
// `__shared__` array of a `__global__` kernel is a local array marked
// blockShared (its adjoint is one too), and `__syncthreads()` a statement
// that the reverse sweep mirrors. A warp shuffle of a floating value is a
// call with a custom pullback (include/cgp/device.h sends the adjoints back
// to the lanes they came from) and linear in its value (forward mode
// shuffles the tangent). A load through a cache, `__ldg(&x[i])`, is the
// element itself: its adjoint goes to d_x[i]. Warp votes are refused with a
// message.
//
//===----------------------------------------------------------------------===//
#include "frontend/Lowering.h"

#include "clang/AST/Attr.h"

#include <algorithm>
#include <iterator>
#include <map>

namespace cgp {

ExprRef Lowering::lowerCudaBuiltin(const clang::PseudoObjectExpr *e) {
  const auto *property = llvm::dyn_cast<clang::MSPropertyRefExpr>(
      e->getSyntacticForm()->IgnoreParens());
  const clang::Expr *base = property ? property->getBaseExpr()->IgnoreParenImpCasts() : nullptr;
  if (const auto *ov = llvm::dyn_cast_or_null<clang::OpaqueValueExpr>(base))
    base = ov->getSourceExpr() ? ov->getSourceExpr()->IgnoreParenImpCasts() : nullptr;
  const auto *ref = llvm::dyn_cast_or_null<clang::DeclRefExpr>(base);
  if (!ref)
    unsupported(e, "this property expression is not supported");
  std::string object = ref->getDecl()->getNameAsString();
  if (object != "threadIdx" && object != "blockIdx" && object != "blockDim" &&
      object != "gridDim")
    unsupported(e, "this property expression is not supported");
  std::string field = property->getPropertyDecl()->getNameAsString();
  return runtimeConstant(object + "." + field, scalarType(e->getType(), e->getBeginLoc()));
}

StmtRef Lowering::lowerCudaCallStmt(const clang::CallExpr *e) {
  const clang::FunctionDecl *callee = e->getDirectCallee();
  if (!callee || !ctx_.getLangOpts().CUDA)
    return nullptr;
  std::string name = callee->getNameAsString();
  if (name == kBarrier && e->getNumArgs() == 0) {
    if (!inGlobalKernel())
      unsupported(e, "barriers ('__syncthreads') are supported in the body of a __global__ "
                     "kernel, not in a function it calls");
    if (hasReturn(callStack_.back()->getBody()))
      unsupported(e, "a kernel with barriers ('__syncthreads') cannot return early: its threads "
                     "must all reach every barrier; write 'if (i < n) { ... }' instead");
    return eval(opaque(kBarrier, ScalarType::voidType(), {}));
  }
  if (name == "atomicAdd" && e->getNumArgs() == 2) {
    const clang::Expr *target = e->getArg(0)->IgnoreParenImpCasts();
    const auto *addressOf = llvm::dyn_cast<clang::UnaryOperator>(target);
    ExprRef lhs;
    if (addressOf && addressOf->getOpcode() == clang::UO_AddrOf)
      lhs = lowerLValue(addressOf->getSubExpr());
    else if (const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(target);
             ref && target->getType()->isPointerType()) {
      const auto *vd = llvm::dyn_cast<clang::VarDecl>(ref->getDecl());
      auto known = vd ? vars_.find(vd) : vars_.end(); // atomicAdd(p, v): *p
      if (known != vars_.end() && known->second->isPointer())
        lhs = index(known->second, {intLit(0)});
    }
    if (!lhs || lhs->kind != ExprKind::Index)
      unsupported(e->getArg(0), "'atomicAdd' is supported on an element of a buffer: "
                                "atomicAdd(&y[i], v)");
    StmtRef s = assign(lhs, convert(lowerExpr(e->getArg(1)), lhs->type), AssignOp::Add);
    s->atomicity = StmtNode::Atomicity::Atomic;
    return s;
  }
  return nullptr;
}

ExprRef Lowering::lowerShuffle(const clang::CallExpr *e) {
  const clang::FunctionDecl *callee = e->getDirectCallee();
  if (!callee || !ctx_.getLangOpts().CUDA)
    return nullptr;
  static const std::map<std::string, std::string> pullbacks = {
      {"__shfl_sync", "cgp::dev::shflPullback"},
      {"__shfl_up_sync", "cgp::dev::shflUpPullback"},
      {"__shfl_down_sync", "cgp::dev::shflDownPullback"},
      {"__shfl_xor_sync", "cgp::dev::shflXorPullback"}};
  auto pullback = pullbacks.find(callee->getNameAsString());
  if (pullback == pullbacks.end() || callee->getNumParams() != 4 ||
      !callee->getParamDecl(1)->getType()->isRealFloatingType())
    return nullptr; // a shuffle of integers carries no derivative: an opaque call
  Function *&f = custom_[callee->getCanonicalDecl()];
  if (!f) {
    f = lowerSignature(callee);
    f->cuda = CudaSpace::Device;
    f->pullback = pullback->second;
    f->linearArg = 1;
  }
  return call(f, scalarType(e->getType(), e->getBeginLoc()), lowerArgs(e, f));
}

ExprRef Lowering::lowerCachedLoad(const clang::CallExpr *e) {
  const clang::FunctionDecl *callee = e->getDirectCallee();
  if (!callee || !ctx_.getLangOpts().CUDA || e->getNumArgs() != 1)
    return nullptr;
  static const char *const loads[] = {"__ldg", "__ldcg", "__ldca", "__ldcs", "__ldlu", "__ldcv"};
  std::string name = callee->getNameAsString();
  if (std::find(std::begin(loads), std::end(loads), name) == std::end(loads))
    return nullptr;
  ExprRef element = lowerPointee(e->getArg(0));
  if (!element)
    unsupported(e->getArg(0), "'" + name + "' is supported on an element of a buffer: " +
                                  name + "(&x[i]), " + name + "(x + i)");
  return element;
}

void Lowering::refuseCudaCall(const clang::CallExpr *e) {
  const clang::FunctionDecl *callee = e->getDirectCallee();
  if (!callee || !ctx_.getLangOpts().CUDA)
    return;
  std::string name = callee->getNameAsString();
  if (name == "atomicAdd")
    unsupported(e, "the value 'atomicAdd' returns is not supported; call it as a statement");
  if (name.rfind("atomic", 0) == 0)
    unsupported(e, "'" + name + "' is not supported in a kernel; 'atomicAdd' is");
  if (name.rfind("__syncthreads", 0) == 0 || name == "__syncwarp")
    unsupported(e, "the barrier '" + name + "' is not supported in a kernel that cgp-ad "
                   "differentiates; '__syncthreads()' is");
  if (name == "__ballot_sync" || name == "__any_sync" || name == "__all_sync" ||
      name == "__activemask" || name.rfind("__match", 0) == 0 || name.rfind("__reduce", 0) == 0)
    unsupported(e, "warp intrinsics ('" + name + "') are not supported yet in a kernel that "
                   "cgp-ad differentiates");
}

bool Lowering::inGlobalKernel() const {
  return !callStack_.empty() && callStack_.back()->getCanonicalDecl() == kernelDecl_ &&
         callStack_.back()->hasAttr<clang::CUDAGlobalAttr>();
}

StmtRef Lowering::lowerSharedDecl(const clang::VarDecl *vd) {
  if (!inGlobalKernel())
    unsupported(vd->getLocation(), "'__shared__' memory such as '" + vd->getNameAsString() +
                                       "' is supported in the body of a __global__ kernel, not in "
                                       "a function it calls");
  if (!vd->getType()->isConstantArrayType())
    unsupported(vd->getLocation(), "'__shared__' variable '" + vd->getNameAsString() +
                                       "': only arrays of a size known when compiling are "
                                       "supported (declare a scalar as an array of one)");
  Var v;
  std::string problem = describeVarType(vd->getType(), ctx_, v);
  if (!problem.empty())
    unsupported(vd->getLocation(), "'__shared__' array '" + vd->getNameAsString() + "': " + problem);
  v.name = vd->getNameAsString();
  v.origin = Var::Local;
  v.pos = position(vd->getLocation());
  v.blockShared = true;
  Var *var = module_.newVar(v);
  vars_[vd] = var;
  StmtRef d = decl(var);
  d->pos = var->pos;
  return d;
}

} // namespace cgp
