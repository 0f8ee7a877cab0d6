package embed

// StartONNXRuntime loads the ONNX Runtime library once per process, as the
// onnx embedders do (opt.ONNXRuntimeLibrary, GOCHUNK_ONNX_LIBRARY,
// ONNXRUNTIME_LIB_PATH, then the usual names and places), and returns the
// path of the library loaded. Other packages that run ONNX models in ONNX
// Runtime (package ocr) start it through here, so that the process has one
// environment. The error wraps ErrNoRuntime and says how to get the
// library, or why this build cannot load it (no cgo, linked statically).
func StartONNXRuntime(opt Options) (string, error) { return startORT(opt) }
