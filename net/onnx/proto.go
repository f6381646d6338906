package onnx

import "google.golang.org/protobuf/encoding/protowire"

// Field numbers of the onnx.proto messages this package writes (onnx/onnx
// onnx.proto; the same numbers as onnx-go's generated ir package). Repeated
// integers are written unpacked, as the proto2 onnx.proto declares them;
// protobuf parsers accept both forms.
const (
	// ModelProto
	fModelIRVersion       = 1 // int64
	fModelProducerName    = 2 // string
	fModelProducerVersion = 3 // string
	fModelDocString       = 6 // string
	fModelGraph           = 7 // GraphProto
	fModelOpsetImport     = 8 // repeated OperatorSetIdProto
	fModelMetadataProps   = 14

	// OperatorSetIdProto
	fOpsetDomain  = 1 // string
	fOpsetVersion = 2 // int64

	// StringStringEntryProto
	fEntryKey   = 1
	fEntryValue = 2

	// GraphProto
	fGraphNode        = 1  // repeated NodeProto
	fGraphName        = 2  // string
	fGraphInitializer = 5  // repeated TensorProto
	fGraphDocString   = 10 // string
	fGraphInput       = 11 // repeated ValueInfoProto
	fGraphOutput      = 12 // repeated ValueInfoProto

	// NodeProto
	fNodeInput     = 1 // repeated string
	fNodeOutput    = 2 // repeated string
	fNodeName      = 3 // string
	fNodeOpType    = 4 // string
	fNodeAttribute = 5 // repeated AttributeProto

	// AttributeProto
	fAttrName = 1  // string
	fAttrF    = 2  // float (fixed32)
	fAttrI    = 3  // int64
	fAttrInts = 8  // repeated int64
	fAttrType = 20 // AttributeType

	attrFloat = 1 // AttributeProto.AttributeType values
	attrInt   = 2
	attrInts  = 7

	// TensorProto
	fTensorDims     = 1 // repeated int64
	fTensorDataType = 2 // int32 (TensorProto.DataType)
	fTensorName     = 8 // string
	fTensorRawData  = 9 // bytes

	dataTypeFloat = 1 // TensorProto.DataType FLOAT
	dataTypeInt64 = 7 // TensorProto.DataType INT64

	// ValueInfoProto
	fValueInfoName = 1 // string
	fValueInfoType = 2 // TypeProto

	// TypeProto and TypeProto.Tensor
	fTypeTensorType  = 1 // TypeProto.tensor_type
	fTensorTypeElem  = 1 // TypeProto.Tensor.elem_type
	fTensorTypeShape = 2 // TypeProto.Tensor.shape
	fShapeDim        = 1 // TensorShapeProto.dim
	fDimValue        = 1 // TensorShapeProto.Dimension.dim_value
	fDimParam        = 2 // TensorShapeProto.Dimension.dim_param
)

// message is a protobuf message under construction.
type message []byte

func (m *message) varint(num protowire.Number, v uint64) {
	*m = protowire.AppendTag(*m, num, protowire.VarintType)
	*m = protowire.AppendVarint(*m, v)
}

func (m *message) int64(num protowire.Number, v int64) { m.varint(num, uint64(v)) }

func (m *message) float32(num protowire.Number, bits uint32) {
	*m = protowire.AppendTag(*m, num, protowire.Fixed32Type)
	*m = protowire.AppendFixed32(*m, bits)
}

func (m *message) bytes(num protowire.Number, b []byte) {
	*m = protowire.AppendTag(*m, num, protowire.BytesType)
	*m = protowire.AppendBytes(*m, b)
}

func (m *message) string(num protowire.Number, s string) {
	*m = protowire.AppendTag(*m, num, protowire.BytesType)
	*m = protowire.AppendString(*m, s)
}

func (m *message) message(num protowire.Number, sub message) { m.bytes(num, sub) }
