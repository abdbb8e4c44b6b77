//===- downstream-capi.c - Use the installed Lamport C API ----------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport-c/Compiler.h"
#include "lamport-c/Dialects.h"

#include <stdio.h>

static void print(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

int main(void) {
  MlirStringRef name =
      mlirDialectHandleGetNamespace(mlirGetDialectHandle__lamport__());
  printf("dialect: %.*s\n", (int)name.length, name.data);
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirLamportRegisterCompilerDialects(registry);
  MlirContext context = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  MlirModule module = mlirLamportModuleCreateParse(
      context,
      mlirStringRefCreateFromCString(
          "func.func private @f(!lamport.mailbox<tp = 2, capacity = 4, "
          "width = 64>)"),
      mlirStringRefCreateFromCString("downstream.mlir"), print, NULL);
  if (mlirModuleIsNull(module))
    return 1;
  mlirOperationPrint(mlirModuleGetOperation(module), print, NULL);
  printf("\n");
  mlirModuleDestroy(module);
  mlirContextDestroy(context);
  return 0;
}
