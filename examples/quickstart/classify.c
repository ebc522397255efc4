// The quickstart's third command: the int8 digits model that
//   build/bin/quanta examples/digits/digits_cnn.onnx ... -o out/digits_cnn.o
// wrote, called from C on images in a .npy file (float32, N x 1 x 8 x 8).
//
//   classify images.npy [logits.bin]
//
// prints the first images' digits and, given a second path, writes all logits
// there as raw float32 (what the quickstart test compares with the JIT).

#include "digits_cnn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kImageSize = 1 * 8 * 8, kClasses = 10 };

// The float32 C-order array of a .npy file (format versions 1 to 3);
// NULL and a message on anything else.
static float *readNpy(const char *path, long *count) {
  FILE *file = fopen(path, "rb");
  if (!file) {
    perror(path);
    return NULL;
  }
  unsigned char preamble[10];
  float *data = NULL;
  if (fread(preamble, 1, 10, file) != 10 ||
      memcmp(preamble, "\x93NUMPY", 6) != 0) {
    fprintf(stderr, "%s: not a .npy file\n", path);
    goto done;
  }
  // Version 1 has a 2-byte header length; 2 and 3 a 4-byte one.
  long headerLength = preamble[8] | preamble[9] << 8;
  if (preamble[6] >= 2) {
    unsigned char high[2];
    if (fread(high, 1, 2, file) != 2)
      goto done;
    headerLength |= (long)high[0] << 16 | (long)high[1] << 24;
  }
  char *header = malloc(headerLength + 1);
  if (!header || fread(header, 1, headerLength, file) != (size_t)headerLength) {
    fprintf(stderr, "%s: truncated header\n", path);
    free(header);
    goto done;
  }
  header[headerLength] = 0;
  const char *shape = strstr(header, "'shape': (");
  if (!strstr(header, "'descr': '<f4'") ||
      !strstr(header, "'fortran_order': False") || !shape) {
    fprintf(stderr, "%s: expected float32 in C order\n", path);
    free(header);
    goto done;
  }
  *count = 1;
  for (const char *p = shape + 10; *p && *p != ')';) {
    char *end;
    long size = strtol(p, &end, 10);
    if (end == p)
      break;
    *count *= size;
    p = end + strspn(end, ", ");
  }
  free(header);
  data = malloc(*count * sizeof(float));
  if (!data || fread(data, sizeof(float), *count, file) != (size_t)*count) {
    fprintf(stderr, "%s: truncated data\n", path);
    free(data);
    data = NULL;
  }
done:
  fclose(file);
  return data;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: %s images.npy [logits.bin]\n", argv[0]);
    return 2;
  }
  // An object compiled for a CPU feature this one lacks says which.
  const char *missing = digits_cnn_missing_cpu_feature();
  if (missing) {
    fprintf(stderr, "this CPU lacks %s, which the object was compiled for\n",
            missing);
    return 1;
  }
  long count;
  float *images = readNpy(argv[1], &count);
  if (!images)
    return 1;
  if (count % kImageSize != 0) {
    fprintf(stderr, "%s: %ld values are not 8x8 images\n", argv[1], count);
    return 1;
  }
  FILE *logitsFile = argc == 3 ? fopen(argv[2], "wb") : NULL;
  if (argc == 3 && !logitsFile) {
    perror(argv[2]);
    return 1;
  }
  for (long image = 0; image < count / kImageSize; ++image) {
    float logits[kClasses];
    digits_cnn_run(images + image * kImageSize, logits);
    int digit = 0;
    for (int i = 1; i < kClasses; ++i)
      if (logits[i] > logits[digit])
        digit = i;
    // The first twenty digits; the logits file gets them all.
    if (image < 20)
      printf("%d ", digit);
    if (logitsFile)
      fwrite(logits, sizeof(float), kClasses, logitsFile);
  }
  printf("... (%ld images)\n", count / kImageSize);
  free(images);
  return logitsFile && fclose(logitsFile) != 0;
}
