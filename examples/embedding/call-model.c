/* Links the object file quantize-in-memory wrote and calls it through its
 * header: its output on input.bin must equal expected.bin (the JIT's) bit
 * for bit. Usage: call-model <directory of input.bin and expected.bin>. */
#include "model.h"

#include <stdio.h>
#include <string.h>

static int readFloats(const char *dir, const char *name, float *values,
                      size_t count) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *file = fopen(path, "rb");
  if (!file) {
    perror(path);
    return 0;
  }
  size_t read = fread(values, sizeof(float), count, file);
  fclose(file);
  return read == count;
}

int main(int argc, char **argv) {
  static float input[1 * 16 * 16 * 3], expected[10], output[10];
  if (argc != 2 || !readFloats(argv[1], "input.bin", input, 768) ||
      !readFloats(argv[1], "expected.bin", expected, 10))
    return 2;
  const char *missing = tiny_cnn_missing_cpu_feature();
  if (missing) {
    fprintf(stderr, "this CPU lacks %s\n", missing);
    return 1;
  }
  tiny_cnn_run(input, output);
  if (memcmp(output, expected, sizeof output) != 0) {
    fprintf(stderr, "the object file's output differs from the JIT's\n");
    return 1;
  }
  printf("object file output == JIT output (%g %g ...)\n", output[0],
         output[1]);
  return 0;
}
