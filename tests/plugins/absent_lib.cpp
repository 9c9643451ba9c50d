// libtessera-test-absent.so: the dependency of libtessera-testnolib.so. It is built into a
// folder that no search path names, so loading that plugin fails in dlopen.
int tessera_test_absent_value() { return 1; }
