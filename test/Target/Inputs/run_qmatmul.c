/* Links the object file quant-compile made of Tools/Inputs/qmatmul_exec.mlir
 * (its header given with -include) and checks every function against the
 * NumPy goldens of scripts/goldens/gen_qmatmul_exec.py, byte for byte, and
 * that it writes nothing past its output.
 *
 *   run_qmatmul <directory of the .npy files> */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The `count` bytes of data of an int8/uint8 .npy file (format 1.0). */
static int8_t *read_npy(const char *dir, const char *name, size_t count) {
  char path[4096];
  snprintf(path, sizeof path, "%s/qmatmul_%s.npy", dir, name);
  FILE *file = fopen(path, "rb");
  unsigned char preamble[10];
  if (!file || fread(preamble, 1, 10, file) != 10 ||
      memcmp(preamble, "\x93NUMPY\x01", 7) != 0) {
    fprintf(stderr, "%s: not a .npy file of format 1.0\n", path);
    exit(1);
  }
  long header = preamble[8] | (preamble[9] << 8);
  int8_t *data = malloc(count);
  if (fseek(file, 10 + header, SEEK_SET) != 0 ||
      fread(data, 1, count, file) != count) {
    fprintf(stderr, "%s: fewer than %zu bytes of data\n", path, count);
    exit(1);
  }
  fclose(file);
  return data;
}

typedef void (*qmatmul_fn)(const int8_t *, int8_t *);

static int check(const char *dir, const char *name, qmatmul_fn run,
                 size_t inputs, size_t outputs) {
  char input_name[64], expected_name[64];
  snprintf(input_name, sizeof input_name, "%s_input", name);
  snprintf(expected_name, sizeof expected_name, "%s_expected", name);
  int8_t *input = read_npy(dir, input_name, inputs);
  int8_t *expected = read_npy(dir, expected_name, outputs);
  enum { kGuard = 64 };
  int8_t *output = malloc(outputs + kGuard);
  memset(output, 0x55, outputs + kGuard);
  run(input, output);
  size_t equal = 0, overwritten = 0;
  for (size_t i = 0; i < outputs; ++i)
    equal += output[i] == expected[i];
  for (size_t i = outputs; i < outputs + kGuard; ++i)
    overwritten += output[i] != 0x55;
  printf("%s: %zu of %zu outputs equal, %zu bytes after them written\n",
         name, equal, outputs, overwritten);
  free(input);
  free(expected);
  free(output);
  return equal == outputs && overwritten == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s <directory of the .npy files>\n", argv[0]);
    return 2;
  }
  int failures = 0;
  failures += check(argv[1], "odd_u8", odd_u8_run, 5 * 7, 5 * 3);
  failures += check(argv[1], "tiles_s8", tiles_s8_run, 13 * 33, 13 * 40);
  failures += check(argv[1], "k1_u8", k1_u8_run, 1, 1);
  failures += check(argv[1], "wide_u8", wide_u8_run, 9 * 300, 9 * 70);
  return failures;
}
