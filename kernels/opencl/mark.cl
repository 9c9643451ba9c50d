// The device timer's mark (backends/opencl/device_timer.cpp): an empty kernel whose profiling
// timestamps bracket the commands queued between two marks. A kernel rather than
// clEnqueueMarker, because drivers disagree on whether markers carry profiling timestamps.
__kernel void tessera_mark(void) {}
