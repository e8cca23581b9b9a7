// Sanitizer builds: the MPI libraries keep allocations alive past exit on purpose, which
// LeakSanitizer would report as leaks and turn into a failing exit status. Leak checking is
// off for the MPI systems only; every other AddressSanitizer check stays on.
#if defined(__SANITIZE_ADDRESS__)
extern "C" const char* __asan_default_options() { return "detect_leaks=0"; }
#endif
