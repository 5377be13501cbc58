//===- LowerStructArrays.cpp - arrays of structs --------------------------===//
//
// An array of structs whose members (nested structs and 1-D member arrays
// included) are all of one floating type T is, in memory, an array of T:
// C++ lays such a struct out without padding (the entry point checks it with
// a static_assert on its size). The IR sees it as that flat buffer, `stride`
// scalars per element, so every member of every element is an element of
// one named buffer at an explicit index, as the analyses want:
//
//   struct Particle { Vec3 pos; double mass; };   // stride 4
//   ps[i].pos.y                                    ps[i * 4 + 1]
//   ps[i].norm()                                   Particle_norm(ps[i * 4], ...)
//   const Particle& p = ps[i];                     int p_at = i;  (p.mass: ps[p_at * 4 + 3])
//   helper(&ps[k]);  helper(ps + k);               helper(ps + k * 4)
//
// A parameter `const S* ps`, `S* ps` or `S ps[]` is a pointer to T; a kernel
// keeps its signature through its entry point (transform/EntryWrappers.h),
// which passes `reinterpret_cast<const double *>(ps)` and the adjoints'
// buffer likewise. A local `S ps[N]` is a local array of N * stride scalars,
// initialised element by element as C++ does. Structs with members of
// several types (an `int id` among doubles) have no such flat view and are
// refused in arrays, naming the member.
//
//===----------------------------------------------------------------------===//
#include "frontend/Lowering.h"

#include "frontend/TypeMapping.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"

namespace cgp {

Lowering::StructArray Lowering::structArrayLayout(clang::QualType t, const std::string &what,
                                                  clang::SourceLocation loc) {
  StructArray a;
  std::string type = t.getUnqualifiedType().getAsString();
  std::string problem = flattenRecord(t, ctx_, a.leaves);
  if (!problem.empty())
    unsupported(loc, what + ": " + problem);
  for (const RecordLeaf &leaf : a.leaves) {
    if (!leaf.elem.isFloating() || leaf.elem != a.leaves[0].elem)
      unsupported(loc, what + ": arrays of '" + type + "' are supported only when every member "
                          "has one floating type; member '" + leaf.path + "' is '" +
                          leaf.elem.spelling + "'");
    if (leaf.dims.size() > 1)
      unsupported(loc, what + ": member '" + leaf.path + "' of '" + type +
                          "' is a two-dimensional array; arrays of structs may hold "
                          "one-dimensional member arrays only");
    a.offsets.push_back(a.stride);
    a.stride += leaf.dims.empty() ? 1 : leaf.dims[0];
  }
  if (a.leaves.empty())
    unsupported(loc, what + ": '" + type + "' has no members");
  return a;
}

void Lowering::lowerStructArrayParam(const clang::ParmVarDecl *p, Function *f) {
  std::string name = p->getNameAsString();
  clang::QualType t = p->getType();
  clang::QualType element = t->isPointerType() ? t->getPointeeType()
                                               : ctx_.getAsArrayType(t)->getElementType();
  StructArray a = structArrayLayout(element, "parameter '" + name + "'", p->getLocation());
  Var v;
  v.name = name;
  v.elem = a.leaves[0].elem;
  v.shape = Var::Pointer;
  v.isConst = element.isConstQualified();
  v.origin = Var::Param;
  v.paramIndex = static_cast<int>(f->params.size());
  v.pos = position(p->getLocation());
  a.buffer = module_.newVar(v);
  vars_[p] = a.buffer;
  structArrays_[p] = a;
  f->params.push_back(a.buffer);
  f->splitParams = true; // the user's function takes the structs
}

StmtRef Lowering::lowerStructArrayDecl(const clang::VarDecl *vd) {
  std::string name = vd->getNameAsString();
  const auto *arrayType = ctx_.getAsConstantArrayType(vd->getType());
  if (!arrayType)
    unsupported(vd->getLocation(), "local '" + name + "': arrays of structs must have a "
                                                      "constant size");
  clang::QualType element = arrayType->getElementType();
  if (element->isArrayType())
    unsupported(vd->getLocation(), "local '" + name + "': two-dimensional arrays of structs "
                                                      "are not supported");
  StructArray a = structArrayLayout(element, "local '" + name + "'", vd->getLocation());
  int64_t n = static_cast<int64_t>(arrayType->getSize().getZExtValue());
  Var v;
  v.name = name;
  v.elem = a.leaves[0].elem;
  v.shape = Var::Array;
  v.dims = {n * a.stride};
  v.origin = Var::Local;
  v.pos = position(vd->getLocation());
  a.buffer = module_.newVar(v);
  vars_[vd] = a.buffer;
  structArrays_[vd] = a;

  const clang::Expr *init = vd->getInit() ? vd->getInit()->IgnoreImplicit() : nullptr;
  if (const auto *construct = llvm::dyn_cast_or_null<clang::CXXConstructExpr>(init);
      construct && construct->getConstructor()->isDefaultConstructor() &&
      !construct->getConstructor()->isUserProvided())
    init = nullptr; // default member values only
  const auto *list = llvm::dyn_cast_or_null<clang::InitListExpr>(init);
  if (init && !list)
    unsupported(init, "array '" + name + "' must be initialised with a braced list");
  const clang::CXXRecordDecl *rd = element->getAsCXXRecordDecl();
  int64_t listed = list ? std::min<int64_t>(list->getNumInits(), n) : 0;
  if (listed < n && (rd->hasUserDeclaredConstructor() || memberWithConstructor(element)))
    unsupported(vd->getLocation(), "local '" + name + "': elements of an array of structs with "
                                                      "a constructor must all be given");
  std::vector<StmtRef> out{decl(a.buffer)};
  StmtRef body = withSideEffects([&] {
    std::vector<StmtRef> stmts;
    for (int64_t k = 0; k < listed; ++k)
      initRecord(elementView(a, intLit(k)), list->getInit(k), /*declared=*/true, stmts);
    if (listed == n)
      return block(stmts);
    // The rest: zero when the list is there (value-initialised), then the
    // default member values, element by element.
    auto loop = [&](const std::string &counter, int64_t from, int64_t to, auto fill) {
      Var k;
      k.name = counter;
      k.elem = ScalarType::intType();
      k.origin = Var::Temp;
      Var *kv = module_.newVar(k);
      std::vector<StmtRef> inner;
      fill(varRef(kv), inner);
      if (inner.empty())
        return;
      StmtRef s = forStmt(decl(kv, intLit(from)), binary(BinaryOp::Lt, varRef(kv), intLit(to)),
                          assign(varRef(kv), intLit(1), AssignOp::Add), block(inner));
      s->pos = a.buffer->pos;
      stmts.push_back(s);
    };
    if (list)
      loop("k", listed * a.stride, n * a.stride, [&](ExprRef k, std::vector<StmtRef> &inner) {
        inner.push_back(assign(index(a.buffer, {k}), floatLit(0.0, a.buffer->elem)));
      });
    loop("e", listed, n, [&](ExprRef k, std::vector<StmtRef> &inner) {
      initRecord(elementView(a, k), nullptr, /*declared=*/true, inner);
    });
    return block(stmts);
  });
  appendFlat(out, body);
  StmtRef b = block(out);
  b->pos = a.buffer->pos;
  return b;
}

const Lowering::StructArray *Lowering::structArrayOf(const clang::Expr *e) {
  const auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts());
  const auto *vd = dr ? llvm::dyn_cast<clang::VarDecl>(dr->getDecl()) : nullptr;
  auto it = vd ? structArrays_.find(vd) : structArrays_.end();
  return it == structArrays_.end() ? nullptr : &it->second;
}

int64_t Lowering::strideOf(const Var *v) const {
  for (const auto &[decl, a] : structArrays_)
    if (a.buffer == v)
      return a.stride;
  return 0;
}

Lowering::RecordView Lowering::elementView(const StructArray &a, ExprRef index) {
  ExprRef start = index->kind == ExprKind::IntLit
                      ? intLit(index->intValue * a.stride)
                      : binary(BinaryOp::Mul, convert(index, ScalarType::intType()),
                               intLit(a.stride));
  RecordView view;
  for (size_t l = 0; l < a.leaves.size(); ++l) {
    view.places.push_back({a.buffer, plusConstant(start, a.offsets[l])});
    view.fields.push_back(a.leaves[l].fields);
    view.dims.push_back(a.leaves[l].dims);
  }
  return view;
}

std::optional<Lowering::RecordView> Lowering::structElement(const clang::Expr *e) {
  e = e->IgnoreParenImpCasts();
  if (const auto *sub = llvm::dyn_cast<clang::ArraySubscriptExpr>(e)) {
    if (const StructArray *a = structArrayOf(sub->getBase()))
      return elementView(*a, lowerExpr(sub->getIdx()));
    unsupported(e, "only arrays of structs that are parameters or locals can be indexed");
  }
  if (const auto *deref = llvm::dyn_cast<clang::UnaryOperator>(e);
      deref && deref->getOpcode() == clang::UO_Deref)
    if (const StructArray *a = structArrayOf(deref->getSubExpr()))
      return elementView(*a, intLit(0)); // *ps
  return std::nullopt;
}

StmtRef Lowering::lowerRecordReference(const clang::VarDecl *vd) {
  std::string name = vd->getNameAsString();
  clang::QualType t = vd->getType();
  if (t->isRValueReferenceType())
    unsupported(vd->getLocation(), "local '" + name + "': rvalue references are not supported");
  const clang::Expr *init = vd->getInit();
  if (!init)
    unsupported(vd->getLocation(), "local '" + name + "' must be bound where it is declared");
  std::vector<StmtRef> out;
  StmtRef s = withSideEffects([&] {
    // Walk p.a.b down to its struct; an element of an array of structs
    // gets its index bound once, as C++ binds the reference.
    std::vector<const clang::FieldDecl *> path;
    const clang::Expr *at = init->IgnoreParenImpCasts();
    while (const auto *me = llvm::dyn_cast<clang::MemberExpr>(at)) {
      const auto *field = llvm::dyn_cast<clang::FieldDecl>(me->getMemberDecl());
      if (!field || me->isArrow())
        break;
      path.insert(path.begin(), field);
      at = me->getBase()->IgnoreParenImpCasts();
    }
    RecordView view;
    std::vector<StmtRef> binds;
    const auto *sub = llvm::dyn_cast<clang::ArraySubscriptExpr>(at);
    if (const StructArray *a = sub ? structArrayOf(sub->getBase()) : nullptr) {
      ExprRef idx = lowerExpr(sub->getIdx());
      if (idx->kind != ExprKind::IntLit) {
        Var *bound = newLocal(name + "_at", ScalarType::intType(), position(vd->getLocation()));
        binds.push_back(decl(bound, convert(idx, bound->elem)));
        idx = varRef(bound);
      }
      view = subView(elementView(*a, idx), path);
    } else {
      view = recordView(init); // a struct variable, member or temporary
    }
    RecordLocal record;
    for (size_t i = 0; i < view.places.size(); ++i) {
      RecordLeaf leaf;
      leaf.fields = view.fields[i];
      leaf.dims = view.dims[i];
      leaf.elem = view.places[i].var->elem;
      record.leaves.push_back(leaf);
      record.places.push_back(view.places[i]);
    }
    records_[vd] = record;
    return block(binds);
  });
  appendFlat(out, s);
  StmtRef b = block(out);
  b->pos = position(vd->getLocation());
  return b;
}

} // namespace cgp
