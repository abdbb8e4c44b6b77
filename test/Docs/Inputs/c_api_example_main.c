
// Appended to the example of docs/c-api.md by c_api_example.test: compiles
// the program in argv[1] into the bundle argv[2].
#include <stdlib.h>

int main(int argc, char **argv) {
  if (argc != 3)
    return 2;
  FILE *file = fopen(argv[1], "rb");
  if (!file)
    return 2;
  static char source[1 << 16];
  size_t length = fread(source, 1, sizeof(source) - 1, file);
  fclose(file);
  source[length] = '\0';
  return compile(source, argv[2]);
}
