//===- LowerRecords.cpp - structs, by scalar replacement of aggregates ----===//
//
// A local of a struct type becomes one IR variable per leaf member (scalar
// replacement of aggregates): `Vec3 d;` with members x, y, z is three
// doubles `d_x`, `d_y`, `d_z`; a member array stays an array (`cam_k[2]`) and
// a nested struct is flattened into its leaves (`p_pos_x`). Member access is
// then a plain variable or element, so activity, the tape and the planner
// treat each member on its own, as if the user had written the scalars.
// Initialisation follows C++: braced lists member by member (missing ones
// from their default member initialiser, else zero), default member
// initialisers alone, or a copy of another struct; assignment of a whole
// struct copies member by member. A struct parameter is split the same way,
// into one parameter per leaf: a kernel keeps its signature through a
// wrapper (transform/EntryWrappers.h), and a helper runs undifferentiated
// through a copy with the split parameters (transform/PrimalCopies.h).
//
//===----------------------------------------------------------------------===//
#include "frontend/Lowering.h"

#include "frontend/TypeMapping.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"

#include <algorithm>
#include <set>

namespace cgp {
namespace {

using FieldPath = std::vector<const clang::FieldDecl *>;

/// The initialiser of the member at `path` inside the braced list `init`,
/// a member the list leaves out taking its default member initialiser.
/// Null when it is value-initialised (zero).
const clang::Expr *memberInit(const clang::Expr *init, FieldPath::const_iterator from,
                              FieldPath::const_iterator to);

/// The default value of the member at `path` in a struct initialised by
/// default: the outermost default member initialiser on the way, walked down
/// to it. `found` says whether there is one (else the member is left as it
/// is); the result is null for zero.
const clang::Expr *memberDefault(const FieldPath &path, bool &found) {
  for (auto it = path.begin(); it != path.end(); ++it)
    if (const clang::Expr *dflt = (*it)->getInClassInitializer()) {
      found = true;
      return memberInit(dflt->IgnoreImplicit(), it + 1, path.end());
    }
  found = false;
  return nullptr;
}

const clang::Expr *memberInit(const clang::Expr *init, FieldPath::const_iterator from,
                              FieldPath::const_iterator to) {
  const clang::Expr *at = init;
  for (auto it = from; it != to; ++it) {
    if (const auto *dflt = llvm::dyn_cast<clang::CXXDefaultInitExpr>(at))
      at = dflt->getExpr()->IgnoreImplicit();
    const auto *l = llvm::dyn_cast<clang::InitListExpr>(at);
    if (!l && at->getType()->isRecordType() && !llvm::isa<clang::ImplicitValueInitExpr>(at))
      return at; // a whole nested struct given by a struct expression
    unsigned k = (*it)->getFieldIndex();
    if (!l || k >= l->getNumInits()) {
      bool found = false;
      const clang::Expr *d = memberDefault(FieldPath(it, to), found);
      return found ? d : nullptr;
    }
    at = l->getInit(k)->IgnoreImplicit();
  }
  if (const auto *dflt = llvm::dyn_cast<clang::CXXDefaultInitExpr>(at))
    at = dflt->getExpr()->IgnoreImplicit();
  if (llvm::isa<clang::ImplicitValueInitExpr>(at))
    return nullptr;
  return at;
}

} // namespace

/// A member of struct `t` (nested ones too) whose type has a default
/// constructor the user wrote, which default initialisation would call.
const clang::FieldDecl *Lowering::memberWithConstructor(clang::QualType t) {
  const clang::CXXRecordDecl *rd = t->getAsCXXRecordDecl();
  if (!rd)
    return nullptr;
  for (const clang::FieldDecl *field : rd->fields())
    if (const clang::CXXRecordDecl *inner = field->getType()->getAsCXXRecordDecl();
        inner && !complexElement(field->getType(), ctx_)) { // std::complex's makes zero
      if (inner->hasUserProvidedDefaultConstructor() || memberWithConstructor(field->getType()))
        return field;
    }
  return nullptr;
}

const Lowering::RecordLocal *Lowering::recordLocal(const clang::Expr *e) {
  e = e->IgnoreParenImpCasts();
  if (const auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(e))
    if (const auto *vd = llvm::dyn_cast<clang::VarDecl>(dr->getDecl())) {
      auto it = records_.find(vd);
      if (it != records_.end())
        return &it->second;
    }
  return nullptr;
}

Lowering::RecordView Lowering::recordView(const clang::Expr *e) {
  // Walk s.a.b down to s, collecting the fields on the way.
  std::vector<const clang::FieldDecl *> path;
  const clang::Expr *at = e->IgnoreParenImpCasts();
  while (const auto *me = llvm::dyn_cast<clang::MemberExpr>(at)) {
    const auto *field = llvm::dyn_cast<clang::FieldDecl>(me->getMemberDecl());
    if (!field)
      unsupported(me, "calls of member functions are not supported");
    if (me->isArrow() && !llvm::isa<clang::CXXThisExpr>(me->getBase()->IgnoreParenImpCasts())) {
      path.insert(path.begin(), field);
      if (const StructArray *a = structArrayOf(me->getBase())) // ps->x is ps[0].x
        return subView(elementView(*a, intLit(0)), path);
      unsupported(me, "members reached through a pointer ('->') are supported only on arrays of "
                      "structs");
    }
    path.insert(path.begin(), field);
    at = me->getBase()->IgnoreParenImpCasts();
  }
  if (const auto *deref = llvm::dyn_cast<clang::UnaryOperator>(at);
      deref && deref->getOpcode() == clang::UO_Deref &&
      llvm::isa<clang::CXXThisExpr>(deref->getSubExpr()->IgnoreParenImpCasts()))
    at = deref->getSubExpr()->IgnoreParenImpCasts(); // *this
  if (llvm::isa<clang::CXXThisExpr>(at))
    if (const RecordView *self = inlinedObject())
      return subView(*self, path);
  const RecordLocal *record = recordLocal(at);
  if (llvm::isa<clang::CXXThisExpr>(at) && !callStack_.empty()) {
    auto self = thisRecords_.find(callStack_.back());
    if (self != thisRecords_.end())
      record = &self->second;
  }
  if (record)
    return subView(viewOf(*record), path);
  if (std::optional<RecordView> element = structElement(at))
    return subView(*element, path);
  if (const auto *c = llvm::dyn_cast<clang::CallExpr>(at); c && at->isGLValue())
    unsupported(e, "the struct that '" + calleeName(c) + "' returns by reference can only be "
                   "ignored; call it as a statement of its own");
  if (structRValue(at))
    return subView(structValue(at), path);
  unsupported(e, "members of structs are supported only for struct variables and parameters");
}

Lowering::RecordView Lowering::viewOf(const RecordLocal &record) {
  RecordView view;
  view.places = record.places;
  for (const RecordLeaf &leaf : record.leaves) {
    view.fields.push_back(leaf.fields);
    view.dims.push_back(leaf.dims);
  }
  return view;
}

Lowering::RecordView Lowering::subView(const RecordView &whole, const FieldPath &path) {
  RecordView view;
  for (size_t i = 0; i < whole.places.size(); ++i) {
    const FieldPath &fields = whole.fields[i];
    if (fields.size() < path.size() || !std::equal(path.begin(), path.end(), fields.begin()))
      continue;
    view.places.push_back(whole.places[i]);
    view.fields.emplace_back(fields.begin() + path.size(), fields.end());
    view.dims.push_back(whole.dims[i]);
  }
  return view;
}

std::vector<Var *> Lowering::RecordLocal::vars() const {
  std::vector<Var *> out;
  for (const LeafPlace &p : places)
    out.push_back(p.var);
  return out;
}

Lowering::RecordView Lowering::memberLeaf(const clang::Expr *e) {
  RecordView view = recordView(e);
  if (view.places.size() != 1 || !view.fields[0].empty())
    unsupported(e, "a nested struct can only be copied or assigned as a whole");
  return view;
}

Lowering::RecordLocal Lowering::newRecordLocal(const clang::VarDecl *vd, const std::string &what) {
  RecordLocal record;
  std::string problem = flattenRecord(vd->getType().getNonReferenceType(), ctx_, record.leaves,
                                      /*vectors=*/true);
  if (!problem.empty())
    unsupported(vd->getLocation(), what + ": " + problem);
  for (const RecordLeaf &leaf : record.leaves) {
    Var v;
    v.name = leafVarName(vd->getNameAsString(), leaf);
    v.spelling = leafSpelling(vd->getNameAsString(), leaf);
    v.elem = leaf.elem;
    v.dims = leaf.dims;
    v.shape = leaf.dims.empty() ? Var::Scalar : Var::Array;
    v.origin = Var::Local;
    v.pos = position(vd->getLocation());
    if (leaf.isVector) { // a buffer the function owns, as a vector local is
      v.shape = Var::Pointer;
      v.ownsStorage = true;
      v.sizeVar = newLocal(v.name + "_size", sizeType(ctx_), v.pos);
      v.sizeVar->spelling = sourceName(v) + ".size()";
    }
    record.places.push_back({module_.newVar(v), nullptr});
  }
  return record;
}

void Lowering::declareLeaf(Var *v, std::vector<StmtRef> &out) {
  if (!v->ownsStorage) {
    out.push_back(decl(v));
    return;
  }
  out.push_back(decl(v->sizeVar, intLit(0, v->sizeVar->elem))); // empty
  out.push_back(decl(v));
  resizeBuffer(v, out);
}

void Lowering::resizeBuffer(Var *v, std::vector<StmtRef> &out) {
  out.push_back(sizeStorage(v));
  out.push_back(refreshElements(v));
}

void Lowering::copyVector(Var *to, Var *from, ExprRef fromSize, clang::SourceLocation loc,
                          std::vector<StmtRef> &out) {
  if (!to->ownsStorage)
    unsupported(loc, "assigns a whole std::vector ('" + to->name + "') that is not a local of "
                     "this function; its size is the caller's");
  if (to == from)
    return;
  out.push_back(assign(varRef(to->sizeVar), convert(std::move(fromSize), to->sizeVar->elem)));
  resizeBuffer(to, out);
  out.push_back(elementLoop(to, varRef(to->sizeVar), [from](ExprRef k) { return index(from, {k}); },
                            position(loc)));
}

StmtRef Lowering::lowerRecordDecl(const clang::VarDecl *vd) {
  std::string name = vd->getNameAsString();
  if (const clang::Expr *value = vd->getInit() ? structRValue(vd->getInit()) : nullptr;
      value && filledByCall(value) && !holdsVectors(value->getType()))
    return lowerFilledDecl(vd, value); // Vec3 d = a - b;  Vec3 v(1, 2, 3);
  RecordLocal record = newRecordLocal(vd, "local '" + name + "'");
  records_[vd] = record;
  RecordView view = viewOf(record);

  std::vector<StmtRef> out;
  for (const LeafPlace &p : view.places)
    declareLeaf(p.var, out);
  const clang::Expr *init = vd->getInit();
  StmtRef body = withSideEffects([&] {
    std::vector<StmtRef> stmts;
    initRecord(view, init, /*declared=*/true, stmts);
    return block(stmts);
  });
  appendFlat(out, body);
  StmtRef b = block(out);
  b->pos = position(vd->getLocation());
  return b;
}

void Lowering::initRecord(const RecordView &to, const clang::Expr *init, bool declared,
                          std::vector<StmtRef> &out, bool zeroRest) {
  if (init && foreignRoot(init)) { // a copy of a struct held by a foreign constant
    std::vector<ExprRef> operands;
    std::string pattern = foreignPattern(init, operands);
    copyForeignRecord(to, init->getType(), pattern, operands, out);
    return;
  }
  if (init) {
    init = init->IgnoreImplicit();
    if (const auto *cleanups = llvm::dyn_cast<clang::ExprWithCleanups>(init))
      init = cleanups->getSubExpr()->IgnoreImplicit();
    if (isEigen(init)) {
      fillEigen(to, init, out); // Vector3d d = a - b;  m = Matrix3d::Identity();
      return;
    }
    if (const clang::Expr *value = structRValue(init)) {
      if (isComplexOperation(value)) {
        if (declared) {
          fillComplex(to, value, out); // std::complex<double> z(x, y);  z = a * b;
        } else {
          // The value may read the parts it replaces (`z = std::polar(abs(z), 1.0)`).
          ComplexValue v = complexResult(value);
          setComplex(to, v, out);
        }
        return;
      }
      if (filledByCall(value) && !(llvm::isa<clang::CXXConstructExpr>(value) &&
                                   holdsVectors(value->getType()))) {
        copyRecord(to, structValue(value), out); // s = a - b;  return Vec3(x, y, z);
        return;
      }
      init = value; // Vec3{...}
    }
  }
  // What each leaf starts with: null (and not zero) for "left as it is".
  size_t n = to.places.size();
  std::vector<const clang::Expr *> values(n, nullptr);
  std::vector<bool> zero(n, false);
  const auto *construct = llvm::dyn_cast_or_null<clang::CXXConstructExpr>(init);
  if (construct && construct->getConstructor()->isCopyOrMoveConstructor() &&
      construct->getNumArgs() == 1) {
    copyRecord(to, recordView(construct->getArg(0)), out);
    return;
  }
  if (construct && construct->getConstructor()->isUserProvided() &&
      holdsVectors(construct->getType())) {
    inlineConstructor(to, construct, out); // Mat m(n, n); with a std::vector member
    return;
  }
  if (construct && !(construct->getConstructor()->isDefaultConstructor() &&
                     !construct->getConstructor()->isUserProvided()))
    unsupported(init, "constructors other than the implicit ones are not supported yet");
  if (!init || construct) {
    // Default initialisation: default member initialisers, the rest left
    // as it is (or zero, for `S s{}` and `S()`).
    if (construct)
      if (const clang::FieldDecl *built = memberWithConstructor(init->getType()))
        unsupported(init, "default-initialising '" + init->getType().getAsString() +
                              "', whose member '" + built->getNameAsString() +
                              "' has a constructor, is not supported; initialise it with braces");
    bool zeroAll = (construct && construct->requiresZeroInitialization()) || zeroRest;
    for (size_t i = 0; i < n; ++i) {
      bool found = false;
      values[i] = memberDefault(to.fields[i], found);
      bool complexZero = !to.fields[i].empty() && complexElement(to.fields[i].back()->getType(), ctx_);
      zero[i] = !values[i] && (found || zeroAll || complexZero);
    }
    if (!declared && !init)
      return;
  } else if (const auto *list = llvm::dyn_cast<clang::InitListExpr>(init)) {
    if (list->getNumInits() == 1 && list->getInit(0)->getType()->isRecordType() &&
        !llvm::isa<clang::InitListExpr>(list->getInit(0)->IgnoreImplicit())) {
      copyRecord(to, recordView(list->getInit(0)), out); // S s{other};
      return;
    }
    // Walk the list along the fields, nested lists for nested structs.
    for (size_t i = 0; i < n; ++i) {
      values[i] = memberInit(list, to.fields[i].begin(), to.fields[i].end());
      zero[i] = !values[i];
    }
  } else if (init->getType()->isRecordType()) {
    copyRecord(to, recordView(init), out); // s = t; or S s = t; as an lvalue
    return;
  } else {
    unsupported(init, "this initialisation of a struct is not supported; use braces or copy "
                      "another struct variable");
  }
  for (size_t i = 0; i < n; ++i) {
    const LeafPlace &place = to.places[i];
    Var *v = place.var;
    if (place.isVector()) { // a std::vector member: starts empty
      if (values[i] && !llvm::isa<clang::CXXConstructExpr>(values[i]->IgnoreImplicit()))
        unsupported(values[i], "a std::vector member can be set in a braced list only by "
                               "leaving it out (empty); resize or assign it afterwards");
      if (values[i])
        initVector(v, values[i], out);
      else if (!declared) {
        out.push_back(assign(varRef(v->sizeVar), intLit(0, v->sizeVar->elem)));
        resizeBuffer(v, out);
      }
      continue;
    }
    ExprRef zeroValue = v->isFloating() ? floatLit(0.0, v->elem) : intLit(0, v->elem);
    if (values[i] && values[i]->getType()->isRecordType()) {
      // A nested struct given whole (`{p, v}`, `{Vec3(1, 2, 3), m}`): its
      // leaves are the next ones that share this value.
      if (i > 0 && values[i - 1] == values[i])
        continue;
      RecordView part;
      for (size_t j = i; j < n && values[j] == values[i]; ++j) {
        part.places.push_back(to.places[j]);
        part.fields.push_back(to.fields[j]);
        part.dims.push_back(to.dims[j]);
      }
      copyRecord(part, valueView(values[i]), out);
      continue;
    }
    if (!to.dims[i].empty() && (place.offset || v->isPointer())) {
      // A member array inside a buffer (an element of an array of structs)
      // or reached through a pointer (a parameter's).
      if (values[i] || zero[i])
        initElements(place, to.dims[i], values[i], out);
      continue;
    }
    if (v->isArray() && !place.offset) {
      if (values[i])
        appendFlat(out, lowerArrayInit(v, values[i]));
      else if (zero[i])
        for (int64_t k = 0; k < v->elementCount(); ++k)
          out.push_back(assign(index(v, elementAt(v, k)), zeroValue));
      continue;
    }
    if (values[i])
      out.push_back(assign(leafRef(place), convert(lowerExpr(values[i]), v->elem)));
    else if (zero[i])
      out.push_back(assign(leafRef(place), zeroValue));
  }
  // `p = {t, p.x, p.y};` builds the whole value before it assigns: a member
  // read after an earlier one was set must read the old value, so when one
  // does, every value goes through a temporary first.
  std::set<const Var *> targets;
  for (const LeafPlace &p : to.places)
    targets.insert(p.var);
  bool readsTarget = false;
  for (const StmtRef &a : out)
    forEachExpr(a->value, [&](const ExprRef &x) { readsTarget |= x->var && targets.count(x->var); });
  if (!readsTarget || declared)
    return;
  std::vector<StmtRef> staged, stores;
  for (const StmtRef &a : out) {
    if (a->kind != StmtKind::Assign || a->lhs->type.isVoid()) {
      stores.push_back(a);
      continue;
    }
    Var t;
    t.name = lvalueVar(a->lhs)->name + "_new";
    t.elem = a->lhs->type;
    t.origin = Var::Local;
    t.pos = lvalueVar(a->lhs)->pos;
    Var *temp = module_.newVar(t);
    staged.push_back(decl(temp, a->value));
    stores.push_back(assign(a->lhs, varRef(temp)));
  }
  out = staged;
  appendAll(out, stores);
}

ExprRef Lowering::leafRef(const LeafPlace &p) {
  if (p.offset)
    return index(p.var, {p.offset});
  if (p.var->isPointer() && p.var->isReference)
    return index(p.var, {intLit(0)});
  return varRef(p.var);
}

ExprRef Lowering::leafElement(const LeafPlace &p, int64_t k) {
  if (p.offset)
    return index(p.var, {plusConstant(p.offset, k)});
  return index(p.var, p.var->isArray() ? elementAt(p.var, k) : std::vector<ExprRef>{intLit(k)});
}

ExprRef Lowering::leafAddress(const LeafPlace &p) {
  return address(p.var, p.offset ? p.offset : intLit(0));
}

std::vector<ExprRef> Lowering::elementAt(const Var *v, int64_t k) {
  if (v->dims.size() == 2)
    return {intLit(k / v->dims[1]), intLit(k % v->dims[1])};
  return {intLit(k)};
}

void Lowering::copyRecord(const RecordView &to, const RecordView &from,
                          std::vector<StmtRef> &out) {
  if (to.places.size() != from.places.size())
    throw Unsupported{clang::SourceLocation(), "internal error: structs of different shapes"};
  for (size_t i = 0; i < to.places.size(); ++i) {
    const LeafPlace &dst = to.places[i], &src = from.places[i];
    if (dst.isVector()) {
      copyVector(dst.var, src.var, varRef(src.var->sizeVar), clang::SourceLocation(), out);
      continue;
    }
    if (to.dims[i].empty()) {
      out.push_back(assign(leafRef(dst), leafRef(src)));
      continue;
    }
    // A member array: a local's is an array, a parameter's a pointer.
    int64_t count = 1;
    for (int64_t d : to.dims[i])
      count *= d;
    for (int64_t k = 0; k < count; ++k)
      out.push_back(assign(leafElement(dst, k), leafElement(src, k)));
  }
}

void Lowering::lowerThisParam(const clang::CXXMethodDecl *md, Function *f) {
  clang::QualType self = ctx_.getRecordType(md->getParent());
  if (md->isConst())
    self.addConst();
  thisRecords_[md] = splitRecordParam("", ctx_.getLValueReferenceType(self), md->getLocation(), f);
}

void Lowering::lowerRecordParam(const clang::ParmVarDecl *p, Function *f) {
  records_[p] = splitRecordParam(p->getNameAsString(), p->getType(), p->getLocation(), f);
}

Lowering::RecordLocal Lowering::splitRecordParam(const std::string &name, clang::QualType t,
                                                 clang::SourceLocation loc, Function *f) {
  std::string what = name.empty() ? "'*this'" : "parameter '" + name + "'";
  if (t->isRValueReferenceType())
    unsupported(loc, what + ": rvalue references are not supported");
  bool inOut = t->isLValueReferenceType() && !t.getNonReferenceType().isConstQualified();
  bool readOnly = t.getNonReferenceType().isConstQualified();
  RecordLocal record;
  std::string problem = flattenRecord(t.getNonReferenceType(), ctx_, record.leaves,
                                      /*vectors=*/true);
  if (!problem.empty())
    unsupported(loc, what + ": " + problem);
  for (const RecordLeaf &leaf : record.leaves) {
    if (leaf.isVector) {
      // The caller's vector: its elements through a pointer (writable
      // through an `S&`), its size after it, as a vector parameter.
      Var v;
      v.name = leafVarName(name, leaf);
      v.spelling = leafSpelling(name, leaf);
      v.elem = leaf.elem;
      v.shape = Var::Pointer;
      v.isConst = !inOut;
      v.origin = Var::Param;
      v.pos = position(loc);
      v.paramIndex = static_cast<int>(f->params.size());
      Var *data = module_.newVar(v);
      f->params.push_back(data);
      data->sizeVar = addSizeParam(v.name, v.pos, f);
      record.places.push_back({data, nullptr});
      continue;
    }
    if (leaf.dims.size() > 1)
      unsupported(loc, what + ": member '" + leaf.path +
                          "' is a two-dimensional array; struct parameters may hold "
                          "one-dimensional arrays only");
    Var v;
    v.name = leafVarName(name, leaf);
    v.spelling = leafSpelling(name, leaf);
    v.elem = leaf.elem;
    v.origin = Var::Param;
    v.pos = position(loc);
    if (!leaf.dims.empty()) {
      // The caller's member array, through a pointer; a copy's (`S s`) is
      // read-only here, so that the callee cannot change the caller's.
      v.shape = Var::Pointer;
      v.isConst = !inOut;
      v.extent = leaf.dims[0];
    } else if (inOut) {
      v.shape = Var::Pointer;
      v.isReference = true;
    } else {
      v.shape = Var::Scalar;
      v.isConst = readOnly;
      v.isReference = readOnly && t->isReferenceType();
    }
    v.paramIndex = static_cast<int>(f->params.size());
    Var *var = module_.newVar(v);
    record.places.push_back({var, nullptr});
    f->params.push_back(var);
  }
  f->splitParams = true;
  return record;
}

ExprRef Lowering::lowerMemberCall(const clang::CXXMemberCallExpr *e) {
  const clang::CXXMethodDecl *md = e->getMethodDecl();
  if (!md)
    unsupported(e, "calls through pointers to members are not supported");
  if (ExprRef part = lowerComplexScalar(e))
    return part;
  if (ExprRef coefficient = lowerEigenScalar(e))
    return coefficient;
  if (ExprRef r = lowerContainerMethod(e))
    return r;
  if (ExprRef element = lowerAccessorCall(e))
    return element;
  if (md->isVirtual())
    unsupported(e, "virtual calls are not supported");
  const clang::FunctionDecl *def = md->getDefinition();
  if (!def || !def->hasBody() || ctx_.getSourceManager().isInSystemHeader(def->getLocation()))
    unsupported(e, "calls of member functions are supported only for methods of your own "
                   "structs whose body cgp-ad sees");
  prepareClosureArgs(e, def);
  return lowerUserCall(e, scalarType(e->getType(), e->getBeginLoc()), nullptr);
}

void Lowering::describeSplitParam(const clang::ParmVarDecl *p, int index, Function *f) {
  clang::QualType t = p->getType();
  clang::QualType record = t.getNonReferenceType();
  SplitParam split;
  split.index = index;
  split.name = p->getNameAsString();
  if (auto array = structArrays_.find(p); array != structArrays_.end()) {
    // An array of structs: one pointer to them as a flat buffer.
    clang::QualType element = t->isPointerType() ? t->getPointeeType()
                                                 : ctx_.getAsArrayType(t)->getElementType();
    split.type = globalTypeName(element, ctx_);
    split.isConst = element.isConstQualified();
    split.inOut = !split.isConst;
    split.flat = true;
    split.stride = array->second.stride;
    split.leaves.push_back({array->second.buffer, "", true});
    f->splitOriginals.push_back(split);
    return;
  }
  split.type = globalTypeName(record, ctx_);
  split.isConst = record.isConstQualified();
  split.byReference = t->isReferenceType();
  split.inOut = split.byReference && !split.isConst;
  const RecordLocal &r = records_.at(p);
  for (size_t i = 0; i < r.leaves.size(); ++i) {
    if (r.leaves[i].isVector)
      unsupported(p->getLocation(), "parameter '" + split.name + "': member '" +
                                        r.leaves[i].path + "' is a std::vector; a kernel's struct "
                                        "parameters may hold numbers and fixed-size arrays only");
    SplitParam::Leaf leaf;
    leaf.var = r.places[i].var;
    for (const clang::FieldDecl *field : r.leaves[i].fields)
      leaf.access += "." + field->getNameAsString();
    leaf.isArray = !r.leaves[i].dims.empty();
    leaf.complexPart = r.leaves[i].complexPart;
    if (r.leaves[i].eigen)
      leaf.access += ".data()"; // an Eigen matrix's coefficients
    else if (leaf.complexPart < 0 && containerTypeOf(r.leaves[i].fields.back()->getType(), ctx_))
      leaf.access += ".data()"; // a std::array member
    split.leaves.push_back(leaf);
  }
  f->splitOriginals.push_back(split);
}

void Lowering::lowerRecordArgs(const clang::Expr *arg, const Function *f,
                               const std::vector<Var *> &params, std::vector<ExprRef> &args) {
  viewArgs(valueView(arg), arg, f, params, args);
}

void Lowering::viewArgs(const RecordView &view, const clang::Expr *arg, const Function *f,
                        const std::vector<Var *> &params, std::vector<ExprRef> &args) {
  for (size_t j = 0; j < params.size(); ++j) {
    Var *param = params[j];
    const LeafPlace &from = view.places[j];
    if (param->sizeVar) { // a std::vector member: its elements, then its size
      if (!from.isVector())
        throw Unsupported{clang::SourceLocation(), "internal error: a vector leaf expected"};
      args.push_back(address(from.var, intLit(0)));
      args.push_back(varRef(from.var->sizeVar));
      continue;
    }
    if (!view.dims[j].empty()) {
      args.push_back(leafAddress(from));
    } else if (param->isPointer()) { // a member of an `S&`
      ExprRef element = leafRef(from);
      if (element->kind == ExprKind::Index) {
        args.push_back(referenceArgument(elementAddress(element)));
      } else {
        args.push_back(referenceCopy(from.var, f, param, arg));
      }
    } else {
      args.push_back(convert(leafRef(from), param->elem));
    }
  }
}

StmtRef Lowering::lowerRecordAssign(const clang::CXXOperatorCallExpr *e) {
  if (StmtRef s = lowerComplexStmt(e)) // z = x, a number
    return s;
  std::vector<StmtRef> out;
  RecordView to = recordView(e->getArg(0));
  const clang::Expr *from = e->getArg(1)->IgnoreImplicit();
  if (const auto *temp = llvm::dyn_cast<clang::MaterializeTemporaryExpr>(from))
    from = temp->getSubExpr()->IgnoreImplicit();
  if (from->getType()->isRecordType() && !llvm::isa<clang::InitListExpr>(from) &&
      !llvm::isa<clang::CXXConstructExpr>(from)) {
    StmtRef body = withSideEffects([&] {
      std::vector<StmtRef> stmts;
      copyRecord(to, structValue(from), stmts); // b = c;  d = a + b;
      return block(stmts);
    });
    appendFlat(out, body);
  } else {
    StmtRef body = withSideEffects([&] {
      std::vector<StmtRef> stmts;
      initRecord(to, from, /*declared=*/false, stmts);
      return block(stmts);
    });
    appendFlat(out, body);
  }
  StmtRef b = block(out);
  b->pos = position(e->getBeginLoc());
  return b;
}

} // namespace cgp
