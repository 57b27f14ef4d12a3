// google.rpc (vendored in protos/google/rpc): Status, ErrorInfo and the other error details, Code.
export * from "./gen/google/rpc/code_pb.js";
export * from "./gen/google/rpc/error_details_pb.js";
export * from "./gen/google/rpc/status_pb.js";
