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
package io.metaroce.driver;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Polling with a deadline: a condition that does not become true in time fails the test instead of hanging it.
 */
final class Await
{
    private Await()
    {
    }

    static void until(final String what, final BooleanSupplier condition)
    {
        until(what, 10_000, condition);
    }

    static void until(final String what, final long timeoutMs, final BooleanSupplier condition)
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadlineNs)
            {
                fail("timed out after " + timeoutMs + " ms waiting for " + what);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    /**
     * A deadline for hand-written polling loops.
     */
    static final class Deadline
    {
        private final long deadlineNs;
        private final long timeoutMs;

        Deadline(final long timeoutMs)
        {
            this.timeoutMs = timeoutMs;
            this.deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        }

        void check(final String what)
        {
            if (System.nanoTime() > deadlineNs)
            {
                fail("timed out after " + timeoutMs + " ms waiting for " + what);
            }
        }
    }
}
