package io.sovia.eth;

/**
 * The classic BPF programs on this JVM's two packet sockets, so the kernel hands each JVM only its own frames
 * and wakes nobody else (several JVMs on one host each open their own sockets): the data socket takes
 * {@link EthFrameDescriptor#FRAME}s for this instance, the control socket every other kind for this instance, plus
 * HELLOs for any instance (a client does not know which JVM listens). The socket is bound to Sovia's EtherType, so
 * the programs need not check it.
 */
final class EthFilters {
    private static final int LD_B_ABS = 0x30;
    private static final int LD_W_ABS = 0x20;
    private static final int JEQ_K = 0x15;
    private static final int RET_K = 0x06;
    private static final int ACCEPT = 0xFFFF;

    private EthFilters() {
    }

    /** FRAME for {@code instance}. */
    static long[] data(int instance) {
        int me = Integer.reverseBytes(instance); // BPF loads words big endian; Sovia writes them little endian
        return new long[] {
            insn(LD_B_ABS, 0, 0, EthFrameDescriptor.KIND),
            insn(JEQ_K, 0, 3, EthFrameDescriptor.FRAME),
            insn(LD_W_ABS, 0, 0, EthFrameDescriptor.DESTINATION_INSTANCE),
            insn(JEQ_K, 0, 1, me),
            insn(RET_K, 0, 0, ACCEPT),
            insn(RET_K, 0, 0, 0),
        };
    }

    /** Every kind but FRAME for {@code instance}, and HELLO for any. */
    static long[] control(int instance) {
        int me = Integer.reverseBytes(instance);
        return new long[] {
            insn(LD_B_ABS, 0, 0, EthFrameDescriptor.KIND),
            insn(JEQ_K, 6, 0, EthFrameDescriptor.FRAME),
            insn(LD_W_ABS, 0, 0, EthFrameDescriptor.DESTINATION_INSTANCE),
            insn(JEQ_K, 3, 0, me),
            insn(JEQ_K, 0, 3, 0),
            insn(LD_B_ABS, 0, 0, EthFrameDescriptor.KIND),
            insn(JEQ_K, 0, 1, EthFrameDescriptor.HELLO),
            insn(RET_K, 0, 0, ACCEPT),
            insn(RET_K, 0, 0, 0),
        };
    }

    private static long insn(int code, int jt, int jf, int k) {
        return (long) code << 48 | (long) jt << 40 | (long) jf << 32 | (k & 0xFFFFFFFFL);
    }
}
