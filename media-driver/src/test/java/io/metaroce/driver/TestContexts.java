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

import io.metaroce.client.MetaRoce;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.SleepingIdleStrategy;

import java.io.File;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Settings for drivers and clients in tests: a unique directory deleted on close, small buffers, a shared thread
 * with a parking idle strategy (never a busy spin on the 2-core CI machine) and short timers and timeouts.
 */
final class TestContexts
{
    static final long CLIENT_LIVENESS_TIMEOUT_MS = 1_000;
    static final long DRIVER_TIMEOUT_MS = 2_000;

    private TestContexts()
    {
    }

    static String uniqueDirectoryName()
    {
        final String base = new File("/dev/shm").isDirectory() ? "/dev/shm" : System.getProperty("java.io.tmpdir");
        return new File(base, "metaroce-test-" + UUID.randomUUID()).getPath();
    }

    static MediaDriver.Context driverContext()
    {
        return new MediaDriver.Context()
            .directoryName(uniqueDirectoryName())
            .dirDeleteOnShutdown(true)
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy(new BackoffIdleStrategy(
                10, 10, TimeUnit.MICROSECONDS.toNanos(1), TimeUnit.MILLISECONDS.toNanos(1)))
            .toDriverBufferLength(64 * 1024)
            .toClientsBufferLength(64 * 1024)
            .countersBufferLength(64 * 1024)
            .errorBufferLength(64 * 1024)
            .ipcTermLength(64 * 1024)
            .termSparseFile(true)
            .timerIntervalNs(TimeUnit.MILLISECONDS.toNanos(10))
            .clientLivenessTimeoutNs(TimeUnit.MILLISECONDS.toNanos(CLIENT_LIVENESS_TIMEOUT_MS))
            .driverTimeoutNs(TimeUnit.MILLISECONDS.toNanos(DRIVER_TIMEOUT_MS))
            .publicationUnblockTimeoutNs(TimeUnit.MILLISECONDS.toNanos(1_500))
            .publicationLingerTimeoutNs(TimeUnit.MILLISECONDS.toNanos(100))
            .counterFreeToReuseTimeoutNs(0);
    }

    static MetaRoce.Context clientContext(final MediaDriver driver)
    {
        return clientContext(driver.directoryName());
    }

    static MetaRoce.Context clientContext(final String directoryName)
    {
        return new MetaRoce.Context()
            .directoryName(directoryName)
            .driverTimeoutMs(DRIVER_TIMEOUT_MS)
            .keepaliveIntervalNs(TimeUnit.MILLISECONDS.toNanos(100))
            .resourceLingerDurationNs(TimeUnit.MILLISECONDS.toNanos(100))
            .idleStrategy(new SleepingIdleStrategy(TimeUnit.MILLISECONDS.toNanos(1)));
    }
}
