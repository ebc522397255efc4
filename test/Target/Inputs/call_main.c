// A C program with its own main that calls a model function named main
// through the header quant-compile wrote (included with -include).
#include <stdio.h>

int main(void) {
  const float x[3] = {1.0f, 2.0f, 3.0f}, y[3] = {2.0f, 3.0f, 4.0f};
  float sum[3];
  main_run(x, y, sum);
  printf("%g %g %g\n", sum[0], sum[1], sum[2]);
  return 0;
}
