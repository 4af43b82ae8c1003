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
import io.metaroce.client.exceptions.ConfigurationException;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.NoOpIdleStrategy;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConfigurationTest
{
    @Test
    void shouldCreateIdleStrategiesByNameAndClass()
    {
        assertInstanceOf(BusySpinIdleStrategy.class, Configuration.idleStrategy("p", "spin"));
        assertInstanceOf(NoOpIdleStrategy.class, Configuration.idleStrategy("p", "noop"));
        assertInstanceOf(YieldingIdleStrategy.class, Configuration.idleStrategy("p", "yield"));
        assertInstanceOf(BackoffIdleStrategy.class, Configuration.idleStrategy("p", "backoff"));
        assertInstanceOf(SleepingIdleStrategy.class, Configuration.idleStrategy("p", "sleep-ns:1000"));
        assertInstanceOf(YieldingIdleStrategy.class,
            Configuration.idleStrategy("p", YieldingIdleStrategy.class.getName()));
    }

    @Test
    void shouldNamePropertyOfInvalidIdleStrategy()
    {
        assertMessageNames(Configuration.SENDER_IDLE_STRATEGY_PROP_NAME,
            () -> Configuration.idleStrategy(Configuration.SENDER_IDLE_STRATEGY_PROP_NAME, "bogus"));
        assertMessageNames(Configuration.SENDER_IDLE_STRATEGY_PROP_NAME,
            () -> Configuration.idleStrategy(Configuration.SENDER_IDLE_STRATEGY_PROP_NAME, "sleep-ns:-1"));
        assertMessageNames(Configuration.SENDER_IDLE_STRATEGY_PROP_NAME,
            () -> Configuration.idleStrategy(Configuration.SENDER_IDLE_STRATEGY_PROP_NAME, "java.lang.String"));
    }

    @Test
    void shouldNameSettingThatFailsValidation()
    {
        assertConcludeFails(Configuration.IPC_TERM_LENGTH_PROP_NAME, (ctx) -> ctx.ipcTermLength(100_000));
        assertConcludeFails(Configuration.IPC_MTU_PROP_NAME, (ctx) -> ctx.ipcMtu(1000));
        assertConcludeFails(Configuration.IPC_MTU_PROP_NAME, (ctx) -> ctx.ipcMtu(16 * 1024));
        assertConcludeFails(Configuration.IPC_TERM_WINDOW_PROP_NAME, (ctx) -> ctx.ipcTermWindowLength(64 * 1024));
        assertConcludeFails(Configuration.FILE_PAGE_SIZE_PROP_NAME, (ctx) -> ctx.filePageSize(1000));
        assertConcludeFails(Configuration.TO_DRIVER_BUFFER_LENGTH_PROP_NAME, (ctx) -> ctx.toDriverBufferLength(100));
        assertConcludeFails(Configuration.COUNTERS_BUFFER_LENGTH_PROP_NAME, (ctx) -> ctx.countersBufferLength(3000));
        assertConcludeFails(MetaRoce.Configuration.DRIVER_TIMEOUT_PROP_NAME,
            (ctx) -> ctx.driverTimeoutNs(TimeUnit.MILLISECONDS.toNanos(5)));
        assertConcludeFails(Configuration.CLIENT_LIVENESS_TIMEOUT_PROP_NAME,
            (ctx) -> ctx.clientLivenessTimeoutNs(TimeUnit.MILLISECONDS.toNanos(5)));
        assertConcludeFails(Configuration.PUBLICATION_UNBLOCK_TIMEOUT_PROP_NAME,
            (ctx) -> ctx.publicationUnblockTimeoutNs(TimeUnit.MILLISECONDS.toNanos(500)));
        assertConcludeFails(Configuration.STREAM_SESSION_LIMIT_PROP_NAME, (ctx) -> ctx.streamSessionLimit(0));
        assertConcludeFails(
            Configuration.PUBLICATION_DESTINATIONS_MAX_PROP_NAME, (ctx) -> ctx.publicationDestinationsMax(0));
        assertConcludeFails(
            Configuration.PUBLICATION_DESTINATIONS_MAX_PROP_NAME, (ctx) -> ctx.publicationDestinationsMax(1025));
        assertConcludeFails(Configuration.SHARED_CPU_PROP_NAME, (ctx) -> ctx.sharedCpu(-2));
        assertConcludeFails(Configuration.THREADING_MODE_PROP_NAME, (ctx) -> ctx.threadingMode(null));
    }

    @Test
    void shouldNameClientSettingThatFailsValidation()
    {
        assertMessageNames(MetaRoce.Configuration.KEEPALIVE_INTERVAL_PROP_NAME, () -> new MetaRoce.Context()
            .driverTimeoutMs(100)
            .keepaliveIntervalNs(TimeUnit.MILLISECONDS.toNanos(200))
            .conclude());
        assertMessageNames(MetaRoce.Configuration.DRIVER_TIMEOUT_PROP_NAME,
            () -> new MetaRoce.Context().driverTimeoutMs(0).conclude());
        assertMessageNames(MetaRoce.Configuration.RESOURCE_LINGER_DURATION_PROP_NAME,
            () -> new MetaRoce.Context().resourceLingerDurationNs(-1).conclude());
    }

    @Test
    void shouldRefuseToConcludeContextTwice()
    {
        final MediaDriver.Context ctx = TestContexts.driverContext();
        ctx.conclude();
        assertThrows(ConfigurationException.class, ctx::conclude);
    }

    private static void assertConcludeFails(final String name, final Consumer<MediaDriver.Context> change)
    {
        final MediaDriver.Context ctx = TestContexts.driverContext();
        change.accept(ctx);
        assertMessageNames(name, ctx::conclude);
    }

    private static void assertMessageNames(final String name, final Runnable action)
    {
        final ConfigurationException ex = assertThrows(ConfigurationException.class, action::run);
        assertTrue(ex.getMessage().startsWith(name), ex.getMessage());
    }
}
