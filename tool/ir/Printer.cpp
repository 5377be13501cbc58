//===- Printer.cpp - C++ text of IR expressions and statements ------------===//
//
// Prints with the fewest parentheses C++ precedence allows. Casts that C++
// inserts by itself are left out, except conversions between float and
// double, which change the value and are always written.
//
//===----------------------------------------------------------------------===//
#include "ir/Printer.h"

#include <cctype>

#include "ir/MathTable.h"

#include <cmath>
#include <cstdio>

namespace cgp {

std::string Namer::name(const Var *v) const {
  return v->origin == Var::Global && !v->qualifiedName.empty() ? v->qualifiedName : v->name;
}

std::string printFloat(double value, const ScalarType &t) {
  bool isFloat = t.kind == ScalarType::Float;
  if (std::isinf(value))
    return std::string(value < 0 ? "-" : "") + "std::numeric_limits<" + t.spelling +
           ">::infinity()";
  if (std::isnan(value))
    return "std::numeric_limits<" + t.spelling + ">::quiet_NaN()";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, isFloat ? "%.9g" : "%.17g", value);
  std::string s = buffer;
  // Prefer the shortest spelling that reads back as the same value.
  for (int digits = 1; digits < (isFloat ? 9 : 17); ++digits) {
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
    bool same = isFloat ? static_cast<float>(std::strtod(buffer, nullptr)) ==
                              static_cast<float>(value)
                        : std::strtod(buffer, nullptr) == value;
    if (same) {
      s = buffer;
      break;
    }
  }
  // Whole numbers in full: 100.0 rather than 1e+02.
  if (s.find_first_of("eE") != std::string::npos && value == std::trunc(value) &&
      std::fabs(value) < 1e15) {
    std::snprintf(buffer, sizeof buffer, "%.0f", value);
    s = buffer;
  }
  if (s.find_first_of(".eEn") == std::string::npos)
    s += ".0";
  if (isFloat)
    s += "f";
  return s;
}

namespace {

enum Precedence {
  PrecLowest = 0,
  PrecConditional = 2,
  PrecLOr = 3,
  PrecLAnd = 4,
  PrecBitOr = 5,
  PrecBitXor = 6,
  PrecBitAnd = 7,
  PrecEquality = 8,
  PrecRelational = 9,
  PrecShift = 11,
  PrecAdditive = 12,
  PrecMultiplicative = 13,
  PrecUnary = 15,
  PrecPostfix = 16,
};

int precedence(BinaryOp op) {
  switch (op) {
  case BinaryOp::Mul:
  case BinaryOp::Div:
  case BinaryOp::Rem:
    return PrecMultiplicative;
  case BinaryOp::Add:
  case BinaryOp::Sub:
    return PrecAdditive;
  case BinaryOp::Shl:
  case BinaryOp::Shr:
    return PrecShift;
  case BinaryOp::Lt:
  case BinaryOp::Le:
  case BinaryOp::Gt:
  case BinaryOp::Ge:
    return PrecRelational;
  case BinaryOp::Eq:
  case BinaryOp::Ne:
    return PrecEquality;
  case BinaryOp::BitAnd:
    return PrecBitAnd;
  case BinaryOp::BitXor:
    return PrecBitXor;
  case BinaryOp::BitOr:
    return PrecBitOr;
  case BinaryOp::LAnd:
    return PrecLAnd;
  case BinaryOp::LOr:
    return PrecLOr;
  }
  return PrecLowest;
}

bool writesConversion(const ExprNode &c) {
  const ScalarType &from = c.operands[0]->type;
  if (!c.implicitCast)
    return true;
  // float <-> double changes the value: always shown.
  return from.isFloating() && c.type.isFloating() && from.kind != c.type.kind;
}

std::string intLiteral(int64_t v, const ScalarType &t) {
  if (t.kind == ScalarType::Bool)
    return v ? "true" : "false";
  std::string digits = std::to_string(v);
  if (t.spelling == "int" || t.spelling == "std::int64_t")
    return digits;
  static const std::pair<const char *, const char *> suffixes[] = {
      {"unsigned int", "u"},  {"long", "L"},          {"unsigned long", "UL"},
      {"long long", "LL"},    {"unsigned long long", "ULL"}};
  for (auto &[type, suffix] : suffixes)
    if (t.spelling == type && v >= 0)
      return digits + suffix;
  return "static_cast<" + t.spelling + ">(" + digits + ")";
}

} // namespace

std::string Printer::expr(const ExprRef &e, int minPrecedence) const {
  std::string s;
  int prec = PrecPostfix;
  switch (e->kind) {
  case ExprKind::FloatLit:
    s = printFloat(e->floatValue, e->type);
    if (!e->spelling.empty() && e->type.kind == ScalarType::Double)
      s = e->spelling;
    if (s[0] == '-')
      prec = PrecUnary;
    break;
  case ExprKind::IntLit:
    s = intLiteral(e->intValue, e->type);
    if (s[0] == '-')
      prec = PrecUnary;
    break;
  case ExprKind::VarRef:
    s = namer_.name(e->var);
    if (e->var->ownsStorage)
      s += "_storage"; // a std::vector local as a whole: its Buffer
    break;
  case ExprKind::Index:
    s = namer_.name(e->var);
    if (e->var->isPointer() && e->operands.size() == 1 &&
        e->operands[0]->kind == ExprKind::IntLit && e->operands[0]->intValue == 0) {
      if (e->var->isReference)
        break; // `a` itself
      s = "*" + s;
      prec = PrecUnary;
      break;
    }
    for (const ExprRef &i : e->operands)
      s += "[" + expr(i, PrecLowest) + "]";
    break;
  case ExprKind::Unary: {
    std::string operand = expr(e->operands[0], PrecUnary);
    if (!operand.empty() && (operand[0] == '-' || operand[0] == '+'))
      operand = "(" + operand + ")";
    s = std::string(spelling(e->unaryOp)) + operand;
    prec = PrecUnary;
    break;
  }
  case ExprKind::Binary: {
    prec = precedence(e->binaryOp);
    s = expr(e->operands[0], prec) + " " + spelling(e->binaryOp) + " " +
        expr(e->operands[1], prec + 1);
    break;
  }
  case ExprKind::Select:
    prec = PrecConditional;
    s = expr(e->operands[0], PrecLOr) + " ? " + expr(e->operands[1], PrecLowest) + " : " +
        expr(e->operands[2], PrecConditional);
    break;
  case ExprKind::Cast:
    if (!writesConversion(*e))
      return expr(e->operands[0], minPrecedence);
    if (e->operands[0]->kind == ExprKind::FloatLit && e->type.isFloating()) {
      s = printFloat(e->operands[0]->floatValue, e->type);
      if (e->type.kind == ScalarType::Float &&
          static_cast<double>(static_cast<float>(e->operands[0]->floatValue)) !=
              e->operands[0]->floatValue)
        s = "static_cast<float>(" + expr(e->operands[0], PrecLowest) + ")";
      break;
    }
    if (e->operands[0]->kind == ExprKind::IntLit && e->type.isFloating()) {
      s = printFloat(static_cast<double>(e->operands[0]->intValue), e->type);
      break;
    }
    s = "static_cast<" + e->type.spelling + ">(" + expr(e->operands[0], PrecLowest) + ")";
    break;
  case ExprKind::Math: {
    s = mathCallName(e->mathFn, e->type) + "(";
    for (size_t i = 0; i < e->operands.size(); ++i)
      s += (i ? ", " : "") + expr(e->operands[i], PrecLowest);
    s += ")";
    break;
  }
  case ExprKind::Member:
    s = namer_.name(e->var) + "." + e->calleeName;
    break;
  case ExprKind::Foreign:
    for (size_t i = 0; i < e->spelling.size(); ++i) {
      if (e->spelling[i] != '$') {
        s += e->spelling[i];
        continue;
      }
      size_t k = 0, end = i + 1;
      while (end < e->spelling.size() && std::isdigit(static_cast<unsigned char>(e->spelling[end])))
        k = k * 10 + static_cast<size_t>(e->spelling[end++] - '0');
      s += expr(e->operands.at(k), PrecLowest);
      i = end - 1;
    }
    break;
  case ExprKind::Call:
  case ExprKind::Opaque: {
    if (e->kind == ExprKind::Opaque && !e->spelling.empty()) { // a runtime constant
      s = e->spelling;
      break;
    }
    s = e->kind == ExprKind::Call ? e->callee->qualifiedName() : e->calleeName;
    if (e->kind == ExprKind::Opaque && e->var)
      s = namer_.name(e->var) + "." + s;
    s += "(";
    // A device helper's sweep takes the calling thread's tape first.
    bool tape = e->kind == ExprKind::Opaque && e->callee && e->callee->tapeParam;
    if (tape)
      s += "cgp_tape";
    for (size_t i = 0; i < e->operands.size(); ++i) {
      const ExprRef &arg = e->operands[i];
      bool toReference = arg->kind == ExprKind::Address && arg->byReference;
      s += (i || tape ? ", " : "") + (toReference ? referent(arg) : expr(arg, PrecLowest));
    }
    s += ")";
    break;
  }
  case ExprKind::Address: {
    const ExprRef &offset = e->operands[0];
    bool zero = offset->kind == ExprKind::IntLit && offset->intValue == 0;
    std::string base = namer_.name(e->var);
    if (e->var->isScalar() || e->var->isReference) { // the address of a scalar (an adjoint
                                                    // passed to a pullback) or of a reference
      s = "&" + base;
      prec = PrecUnary;
      break;
    }
    if (e->var->isArray() && e->var->dims.size() == 2)
      base = "&" + namer_.name(e->var) + "[0][0]";
    if (zero) {
      s = base;
      prec = base[0] == '&' ? PrecUnary : PrecPostfix;
    } else {
      s = base + " + " + expr(offset, PrecAdditive + 1);
      prec = PrecAdditive;
    }
    break;
  }
  case ExprKind::TapePop:
    s = std::string(e->reservedTape ? "cgp_tape.popReserved<" : "cgp_tape.pop<") +
        e->type.spelling + ">()";
    break;
  }
  if (prec < minPrecedence)
    return "(" + s + ")";
  return s;
}

std::string Printer::referent(const ExprRef &address) const {
  const ExprRef &offset = address->operands[0];
  bool zero = offset->kind == ExprKind::IntLit && offset->intValue == 0;
  const Var *v = address->var;
  if (zero && (v->isScalar() || v->isReference))
    return namer_.name(v);
  if (v->isArray() && v->dims.size() == 2)
    return "*(" + expr(address, PrecLowest) + ")";
  return namer_.name(v) + "[" + expr(offset, PrecLowest) + "]";
}

std::string Printer::declarator(const Var *v, bool restrictPointer) const {
  std::string s;
  if (v->ownsStorage) {
    // The elements' pointer, then the Buffer (or Shadow) that owns them and
    // keeps the pointer at them.
    std::string name = namer_.name(v);
    std::string owner = v->shadowOf ? "cgp::rt::Shadow<" + v->elem.spelling + "> " + name +
                                          "_storage(" + namer_.name(v->shadowOf) + "_storage)"
                                    : "cgp::rt::Buffer<" + v->elem.spelling + "> " + name +
                                          "_storage";
    return v->elem.spelling + " *__restrict " + name + " = nullptr; " + owner;
  }
  if (v->blockShared)
    s += "__shared__ ";
  if (v->isConst)
    s += "const ";
  s += v->elem.spelling;
  if (v->isReference)
    s += " &";
  else if (v->isPointer())
    s += restrictPointer ? " *__restrict " : " *";
  else
    s += " ";
  s += namer_.name(v);
  for (int64_t d : v->dims)
    s += "[" + std::to_string(d) + "]";
  return s;
}

static const char *assignSpelling(AssignOp op) {
  switch (op) {
  case AssignOp::Set: return "=";
  case AssignOp::Add: return "+=";
  case AssignOp::Sub: return "-=";
  case AssignOp::Mul: return "*=";
  case AssignOp::Div: return "/=";
  }
  return "=";
}

/// `&x`, or `p` for `*p`.
static std::string addressOf(const std::string &lvalue) {
  return lvalue.rfind("*", 0) == 0 ? lvalue.substr(1) : "&" + lvalue;
}

std::string Printer::inlineStmt(const StmtRef &s) const {
  if (!s)
    return "";
  switch (s->kind) {
  case StmtKind::Decl:
    if (s->var->ownsStorage) // a Shadow names its primal itself
      return declarator(s->var);
    return declarator(s->var) + (s->value ? " = " + expr(s->value, PrecLowest) : "");
  case StmtKind::Assign: {
    const ExprRef &rhs = s->value;
    if (s->atomicity != StmtNode::Atomicity::None) { // CUDA: threads add at once
      std::string value = s->assignOp == AssignOp::Sub ? "-" + expr(rhs, PrecUnary)
                                                       : expr(rhs, PrecLowest);
      const char *add = s->atomicity == StmtNode::Atomicity::Atomic       ? "atomicAdd"
                        : s->atomicity == StmtNode::Atomicity::WarpAtomic ? "cgp::dev::warpAdd"
                                                                          : "cgp::dev::blockAdd";
      return std::string(add) +
             "(" + addressOf(expr(s->lhs, PrecUnary)) + ", " + value + ")";
    }
    bool one = rhs->kind == ExprKind::IntLit && rhs->intValue == 1 && lvalueVar(s->lhs)->elem.isIntegral();
    if (one && s->assignOp == AssignOp::Add)
      return "++" + expr(s->lhs, PrecUnary);
    if (one && s->assignOp == AssignOp::Sub)
      return "--" + expr(s->lhs, PrecUnary);
    return expr(s->lhs, PrecLowest) + " " + assignSpelling(s->assignOp) + " " +
           expr(rhs, PrecLowest);
  }
  case StmtKind::Eval:
    return expr(s->value, PrecLowest);
  default:
    return "/* unexpected statement */";
  }
}

std::string Printer::stmt(const StmtRef &s, unsigned indent) const {
  std::string out;
  stmtInto(s, indent, out);
  return out;
}

void Printer::bodyInto(const StmtRef &s, unsigned indent, std::string &out) const {
  out += "{\n";
  if (s) {
    if (s->kind == StmtKind::Block)
      for (const StmtRef &c : s->stmts)
        stmtInto(c, indent + 2, out);
    else
      stmtInto(s, indent + 2, out);
  }
  out += std::string(indent, ' ') + "}";
}

void Printer::stmtInto(const StmtRef &s, unsigned indent, std::string &out) const {
  if (!s)
    return;
  std::string pad(indent, ' ');
  switch (s->kind) {
  case StmtKind::Block:
    if (s->stmts.empty())
      return;
    out += pad;
    bodyInto(s, indent, out);
    out += "\n";
    return;
  case StmtKind::Decl:
    if (s->var->isArray() && s->value)
      out += pad + declarator(s->var) + " = {};\n";
    else
      out += pad + inlineStmt(s) + ";\n";
    return;
  case StmtKind::Assign:
  case StmtKind::Eval:
    out += pad + inlineStmt(s) + ";\n";
    return;
  case StmtKind::If: {
    out += pad + "if (" + expr(s->value, PrecLowest) + ") ";
    bodyInto(s->body, indent, out);
    StmtRef e = s->elseBody;
    while (e && !isEmpty(e)) {
      // Print `else if` chains flat.
      StmtRef only = e->kind == StmtKind::Block && e->stmts.size() == 1 ? e->stmts[0] : e;
      if (only->kind == StmtKind::If) {
        out += " else if (" + expr(only->value, PrecLowest) + ") ";
        bodyInto(only->body, indent, out);
        e = only->elseBody;
        continue;
      }
      out += " else ";
      bodyInto(e, indent, out);
      break;
    }
    out += "\n";
    return;
  }
  case StmtKind::For:
    out += pad + "for (" + inlineStmt(s->init) + "; " +
           (s->value ? expr(s->value, PrecLowest) : "") + "; " + inlineStmt(s->step) + ") ";
    bodyInto(s->body, indent, out);
    out += "\n";
    return;
  case StmtKind::While:
    out += pad + "while (" + expr(s->value, PrecLowest) + ") ";
    bodyInto(s->body, indent, out);
    out += "\n";
    return;
  case StmtKind::DoWhile:
    out += pad + "do ";
    bodyInto(s->body, indent, out);
    out += " while (" + expr(s->value, PrecLowest) + ");\n";
    return;
  case StmtKind::Break:
    out += pad + "break;\n";
    return;
  case StmtKind::Continue:
    out += pad + "continue;\n";
    return;
  case StmtKind::Return:
    out += pad + (s->value ? "return " + expr(s->value, PrecLowest) + ";\n" : "return;\n");
    return;
  case StmtKind::Switch: {
    out += pad + "switch (" + expr(s->value, PrecLowest) + ") {\n";
    for (const SwitchCase &c : s->cases) {
      for (int64_t v : c.values)
        out += pad + "case " + std::to_string(v) + ":\n";
      if (c.isDefault)
        out += pad + "default:\n";
      for (const StmtRef &b : c.body)
        stmtInto(b, indent + 2, out);
    }
    out += pad + "}\n";
    return;
  }
  case StmtKind::Comment:
    out += pad + "// " + s->text + "\n";
    return;
  case StmtKind::Push: {
    const ExprRef &v = s->value;
    bool deduced = v->kind == ExprKind::VarRef || v->kind == ExprKind::Index;
    out += pad + (s->reservedTape ? "cgp_tape.pushReserved" : "cgp_tape.push") +
           (deduced ? "" : "<" + v->type.spelling + ">") + "(" +
           expr(v, PrecLowest) + ");\n";
    return;
  }
  case StmtKind::Raw:
    out += pad + s->text + "\n";
    return;
  }
}

std::string printExpr(const ExprRef &e) {
  Namer namer;
  return Printer(namer).expr(e);
}

std::string printStmt(const StmtRef &s, unsigned indent) {
  Namer namer;
  return Printer(namer).stmt(s, indent);
}

std::string printFunction(const Function &f) {
  Namer namer;
  Printer p(namer);
  std::string out = f.returnType.spelling + " " + f.name + "(";
  for (size_t i = 0; i < f.params.size(); ++i)
    out += (i ? ", " : "") + p.declarator(f.params[i]);
  out += ") ";
  std::string body = p.stmt(f.body, 0);
  out += body.empty() ? "{}\n" : body;
  return out;
}

} // namespace cgp
