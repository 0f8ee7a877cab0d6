package embed

// Helpers of this package's tests, for its external tests (late_test.go).
var (
	ONNXRuntimeLibraryForTest = onnxRuntimeLibrary
	BERTModelForTest          = bertModel
)
