package io.sovia.examples;

import io.grpc.MethodDescriptor;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;

/** gRPC methods whose messages are raw bytes, so the demos need no generated code. */
final class GrpcBytes {
    private static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
    };

    private GrpcBytes() {
    }

    /** The method {@code service/name} of {@code type}, bytes in and out. */
    static MethodDescriptor<byte[], byte[]> method(String service, String name, MethodDescriptor.MethodType type) {
        return MethodDescriptor.<byte[], byte[]>newBuilder()
                .setType(type)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(service, name))
                .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();
    }
}
