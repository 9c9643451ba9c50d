// placeholder: filled in by the CPU backend work
