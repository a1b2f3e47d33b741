/* Prices one GEMM through the C API (libperf-c.so), as a C program or any
   language with a C FFI would. */
#include "perf-c/Perf.h"
#include <stdio.h>
#include <string.h>

int main(void) {
  PerfKernel gemm;
  memset(&gemm, 0, sizeof gemm);
  gemm.kind = PerfKernelGemm;
  gemm.batch = 1;
  gemm.m = 4096;
  gemm.n = 4096;
  gemm.k = 1024;
  double us = 0;
  char *error = NULL;
  if (perfKernelLatencyUs(&gemm, "A100", "roofline", &us, &error)) {
    fprintf(stderr, "error: %s\n", error);
    perfFreeString(error);
    return 1;
  }
  printf("gemm %.3f us\n", us);
  /* An unknown GPU is an error with a message, not a crash. */
  if (perfKernelLatencyUs(&gemm, "B9000", "roofline", &us, &error) == 0) {
    fprintf(stderr, "error: B9000 was priced\n");
    return 1;
  }
  printf("unknown gpu: %s\n", error);
  perfFreeString(error);
  return 0;
}
