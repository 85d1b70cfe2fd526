package io.sovia.examples.nettysuite;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Keeps `mvn verify` bounded and green while Sovia has known divergences, always visibly (as skipped,
 * with the reason in the report):
 * <ul>
 * <li>{@code -Dnts.sample=SocketSslEchoTest:8} runs only every 8th invocation (1, 9, 17, ...) of that
 * class's parameterized tests. Netty's permutations (NIO/OIO, allocators) still all run in each kept one.</li>
 * <li>{@code -Dnts.known=SocketHalfClosedTest#testAutoCloseFalseDoesShutdownOutput,...} skips tests that
 * fail under the agent for a diagnosed Sovia divergence (see examples/netty-testsuite/KNOWN.md); the
 * script's full runs set neither property, so there they run and fail.</li>
 * </ul>
 * Registered through Jupiter's extension auto-detection ({@code META-INF/services}); without the
 * properties it disables nothing.
 */
public final class SampledInvocations implements ExecutionCondition {

    private static final Pattern INDEX = Pattern.compile("^\\[?(\\d+)[]:]");

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        String sample = System.getProperty("nts.sample", "");
        if (sample.isEmpty() || context.getTestMethod().isEmpty()) {
            return ConditionEvaluationResult.enabled("no sampling");
        }
        String testClass = context.getRequiredTestClass().getSimpleName();
        String method = context.getRequiredTestMethod().getName();
        for (String known : System.getProperty("nts.known", "").split(",")) {
            known = known.trim();
            if (known.equals(testClass + "#" + method) || known.equals(testClass + "#*")) {
                return ConditionEvaluationResult.disabled("nts.known: fails under the agent for a diagnosed Sovia"
                        + " divergence (examples/netty-testsuite/KNOWN.md)");
            }
        }
        Matcher index = INDEX.matcher(context.getDisplayName());
        for (String rule : sample.split(",")) {
            String[] parts = rule.trim().split(":");
            if (parts.length == 2 && parts[0].equals(testClass) && index.find()) {
                int every = Integer.parseInt(parts[1]);
                int i = Integer.parseInt(index.group(1));
                if ((i - 1) % every != 0) {
                    return ConditionEvaluationResult.disabled("nts.sample: only every " + every + "th invocation of "
                            + testClass + " runs in the bounded selection");
                }
            }
        }
        return ConditionEvaluationResult.enabled("sampled in");
    }
}
