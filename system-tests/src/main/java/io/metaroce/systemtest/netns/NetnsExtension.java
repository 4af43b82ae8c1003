/*
 * Copyright 2026 the MetaRoCE authors
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 * https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package io.metaroce.systemtest.netns;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit 5 extension behind {@link RequiresNetns}. It asks {@code netns.sh check} once per JVM whether topologies can
 * be built here. If not, tests are disabled with the script's reason, unless {@link NetnsConfiguration#required()},
 * in which case they run and fail at once with that reason. Before the first test it removes stale topologies of
 * killed runs.
 */
public final class NetnsExtension implements ExecutionCondition, BeforeAllCallback, BeforeEachCallback
{
    private static volatile String unavailableReason;
    private static volatile boolean checked;

    /**
     * {@inheritDoc}
     */
    public ConditionEvaluationResult evaluateExecutionCondition(final ExtensionContext context)
    {
        final String reason = unavailableReason();
        if (null == reason)
        {
            return ConditionEvaluationResult.enabled("network namespaces are available");
        }
        if (NetnsConfiguration.required())
        {
            return ConditionEvaluationResult.enabled("network namespaces are required here but unavailable: " + reason);
        }

        return ConditionEvaluationResult.disabled("network namespaces unavailable: " + reason);
    }

    /**
     * {@inheritDoc}
     */
    public void beforeAll(final ExtensionContext context)
    {
        failIfUnavailable();
    }

    /**
     * {@inheritDoc}
     */
    public void beforeEach(final ExtensionContext context)
    {
        failIfUnavailable();
    }

    /**
     * Why topologies cannot be built here, asked once per JVM.
     *
     * @return the reason, or null if they can.
     */
    public static synchronized String unavailableReason()
    {
        if (!checked)
        {
            try
            {
                final NetnsScript.Result result = NetnsScript.locate().tryRun("check");
                unavailableReason = 0 == result.exitCode() ? null : result.output().trim();
            }
            catch (final RuntimeException ex)
            {
                unavailableReason = ex.getMessage();
            }
            checked = true;
            if (null == unavailableReason)
            {
                NetnsTopology.cleanStale();
            }
        }

        return unavailableReason;
    }

    private static void failIfUnavailable()
    {
        final String reason = unavailableReason();
        if (null != reason)
        {
            throw new IllegalStateException("network namespaces are required (" +
                NetnsConfiguration.REQUIRED_PROP_NAME + " or CI=true) but unavailable: " + reason);
        }
    }
}
