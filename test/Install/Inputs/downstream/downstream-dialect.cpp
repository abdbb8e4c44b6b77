//===- downstream-dialect.cpp - Use the installed lamport dialect ---------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// Parses and verifies a mailbox type and a publish with the dialect linked
// from an installed Lamport::MLIRLamportDialect, and prints them.
//
//===----------------------------------------------------------------------===//

#include "lamport/Dialect/Lamport/IR/Lamport.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

int main() {
  mlir::DialectRegistry registry;
  registry.insert<mlir::lamport::LamportDialect, mlir::func::FuncDialect>();
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(
          "!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>\n"
          "func.func @f(%mb: !mb, %v: vector<8xbf16>, %s: i32, %r: index,\n"
          "             %c: index) {\n"
          "  lamport.mailbox.publish %v, %mb[%s, %r, %c] : vector<8xbf16>, "
          "!mb\n"
          "  return\n"
          "}\n",
          &context);
  if (!module)
    return 1;
  module->print(llvm::outs());
  llvm::outs() << "\n";
  return 0;
}
