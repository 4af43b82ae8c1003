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
import io.metaroce.client.config.PropertyRegistry;
import io.metaroce.datapath.settings.EngineSettings;
import org.agrona.concurrent.IdleStrategy;

import java.io.PrintStream;
import java.lang.reflect.Field;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * Prints the effective settings of a concluded driver context: every property of {@link DriverPropertyNames} with
 * its value and source. The value is the context's, so a setter used in code shows as such rather than the property
 * it replaced.
 */
final class ConfigurationPrinter
{
    private static final String CODE = "code";

    private ConfigurationPrinter()
    {
    }

    static void print(final MediaDriver.Context ctx, final PrintStream out)
    {
        final MediaDriver.Context fresh = new MediaDriver.Context();
        final Map<String, String[]> rows = new LinkedHashMap<>();
        driverRows(ctx, fresh, rows);
        engineRows(ctx, rows);

        out.println("metaroce: effective configuration of the media driver (name, value, source)");
        for (final Map.Entry<String, String[]> row : rows.entrySet())
        {
            out.printf("  %-48s %-28s %s%n", row.getKey(), row.getValue()[0], row.getValue()[1]);
        }
    }

    /**
     * Every property name the printout covers, for the test that pins it to {@link DriverPropertyNames}.
     */
    static Map<String, String[]> rows(final MediaDriver.Context ctx)
    {
        final Map<String, String[]> rows = new LinkedHashMap<>();
        driverRows(ctx, new MediaDriver.Context(), rows);
        engineRows(ctx, rows);
        return rows;
    }

    private static void driverRows(
        final MediaDriver.Context ctx, final MediaDriver.Context fresh, final Map<String, String[]> rows)
    {
        value(rows, ctx, fresh, MetaRoce.Configuration.DIR_PROP_NAME, MediaDriver.Context::directoryName);
        value(rows, ctx, fresh, Configuration.DIR_DELETE_ON_SHUTDOWN_PROP_NAME,
            MediaDriver.Context::dirDeleteOnShutdown);
        value(rows, ctx, fresh, Configuration.DIR_GROUP_PROP_NAME,
            (c) -> null == c.dirGroup() ? "none (owner only)" : c.dirGroup());
        value(rows, ctx, fresh, Configuration.THREADING_MODE_PROP_NAME, MediaDriver.Context::threadingMode);
        value(rows, ctx, fresh, MetaRoce.Configuration.DRIVER_TIMEOUT_PROP_NAME,
            (c) -> c.driverTimeoutMs() + "ms");
        duration(rows, ctx, fresh, Configuration.CLIENT_LIVENESS_TIMEOUT_PROP_NAME,
            MediaDriver.Context::clientLivenessTimeoutNs);
        duration(rows, ctx, fresh, Configuration.TIMER_INTERVAL_PROP_NAME, MediaDriver.Context::timerIntervalNs);
        duration(rows, ctx, fresh, Configuration.PUBLICATION_UNBLOCK_TIMEOUT_PROP_NAME,
            MediaDriver.Context::publicationUnblockTimeoutNs);
        duration(rows, ctx, fresh, Configuration.PUBLICATION_LINGER_TIMEOUT_PROP_NAME,
            MediaDriver.Context::publicationLingerTimeoutNs);
        duration(rows, ctx, fresh, Configuration.COUNTER_FREE_TO_REUSE_TIMEOUT_PROP_NAME,
            MediaDriver.Context::counterFreeToReuseTimeoutNs);
        duration(rows, ctx, fresh, Configuration.CYCLE_THRESHOLD_PROP_NAME, MediaDriver.Context::cycleThresholdNs);
        value(rows, ctx, fresh, Configuration.IPC_TERM_LENGTH_PROP_NAME, MediaDriver.Context::ipcTermLength);
        value(rows, ctx, fresh, Configuration.IPC_MTU_PROP_NAME, MediaDriver.Context::ipcMtu);
        value(rows, ctx, fresh, Configuration.IPC_TERM_WINDOW_PROP_NAME,
            (c) -> 0 == c.ipcTermWindowLength() ? "0 (half a term)" : c.ipcTermWindowLength());
        value(rows, ctx, fresh, Configuration.TERM_SPARSE_FILE_PROP_NAME, MediaDriver.Context::termSparseFile);
        value(rows, ctx, fresh, Configuration.IMAGE_STORAGE_RESERVE_PROP_NAME,
            MediaDriver.Context::imageStorageReserve);
        value(rows, ctx, fresh, Configuration.FILE_PAGE_SIZE_PROP_NAME, MediaDriver.Context::filePageSize);
        value(rows, ctx, fresh, Configuration.TO_DRIVER_BUFFER_LENGTH_PROP_NAME,
            MediaDriver.Context::toDriverBufferLength);
        value(rows, ctx, fresh, Configuration.TO_CLIENTS_BUFFER_LENGTH_PROP_NAME,
            MediaDriver.Context::toClientsBufferLength);
        value(rows, ctx, fresh, Configuration.COUNTERS_BUFFER_LENGTH_PROP_NAME,
            MediaDriver.Context::countersBufferLength);
        value(rows, ctx, fresh, Configuration.ERROR_BUFFER_LENGTH_PROP_NAME, MediaDriver.Context::errorBufferLength);
        value(rows, ctx, fresh, Configuration.STREAM_SESSION_LIMIT_PROP_NAME,
            (c) -> Integer.MAX_VALUE == c.streamSessionLimit() ? "unlimited" : c.streamSessionLimit());
        value(rows, ctx, fresh, Configuration.PUBLICATION_DESTINATIONS_MAX_PROP_NAME,
            MediaDriver.Context::publicationDestinationsMax);
        value(rows, ctx, fresh, Configuration.CONDUCTOR_CPU_PROP_NAME, MediaDriver.Context::conductorCpu);
        value(rows, ctx, fresh, Configuration.SENDER_CPU_PROP_NAME, MediaDriver.Context::senderCpu);
        value(rows, ctx, fresh, Configuration.RECEIVER_CPU_PROP_NAME, MediaDriver.Context::receiverCpu);
        value(rows, ctx, fresh, Configuration.SHARED_NETWORK_CPU_PROP_NAME, MediaDriver.Context::sharedNetworkCpu);
        value(rows, ctx, fresh, Configuration.SHARED_CPU_PROP_NAME, MediaDriver.Context::sharedCpu);
        idle(rows, ctx, Configuration.CONDUCTOR_IDLE_STRATEGY_PROP_NAME, ctx.conductorIdleStrategy());
        idle(rows, ctx, Configuration.SENDER_IDLE_STRATEGY_PROP_NAME, ctx.senderIdleStrategy());
        idle(rows, ctx, Configuration.RECEIVER_IDLE_STRATEGY_PROP_NAME, ctx.receiverIdleStrategy());
        idle(rows, ctx, Configuration.SHARED_NETWORK_IDLE_STRATEGY_PROP_NAME, ctx.sharedNetworkIdleStrategy());
        idle(rows, ctx, Configuration.SHARED_IDLE_STRATEGY_PROP_NAME, ctx.sharedIdleStrategy());
        raw(rows, ctx, Configuration.TERMINATION_TOKEN_PROP_NAME,
            null == System.getProperty(Configuration.TERMINATION_TOKEN_PROP_NAME) ? "none (termination refused)" :
            "set (not shown)");
        raw(rows, ctx, Configuration.TRANSPORT_PROP_NAME, Configuration.TRANSPORT_DEFAULT);
        raw(rows, ctx, Configuration.TRANSPORT_BATCH_LENGTH_PROP_NAME,
            String.valueOf(Configuration.TRANSPORT_BATCH_LENGTH_DEFAULT));
        raw(rows, ctx, Configuration.TRANSPORT_SEGMENTATION_PROP_NAME,
            String.valueOf(Configuration.TRANSPORT_SEGMENTATION_DEFAULT));
        raw(rows, ctx, Configuration.LOSS_DATA_RATE_PROP_NAME, "none");
        raw(rows, ctx, Configuration.LOSS_CONTROL_RATE_PROP_NAME, "none");
        raw(rows, ctx, Configuration.LOSS_DATA_EVERY_PROP_NAME, "none");
        raw(rows, ctx, Configuration.LOSS_CONTROL_EVERY_PROP_NAME, "none");
        raw(rows, ctx, Configuration.LOSS_SEED_PROP_NAME, "the nano time at start");
        value(rows, ctx, fresh, Configuration.AUTH_KEY_FILE_PROP_NAME,
            (c) -> null == c.authKeyFile() ? "none (connections not authenticated)" : c.authKeyFile());
        value(rows, ctx, fresh, Configuration.AUTH_TRUSTED_PEERS_FILE_PROP_NAME,
            (c) -> null == c.trustedPeersFile() ? "none" : c.trustedPeersFile());
        value(rows, ctx, fresh, Configuration.AUTH_REQUIRE_PROP_NAME, MediaDriver.Context::authRequire);
        value(rows, ctx, fresh, Configuration.AUTH_ENCRYPT_PROP_NAME, MediaDriver.Context::authEncrypt);
        value(rows, ctx, fresh, Configuration.AUTH_KEY_UPDATE_PACKETS_PROP_NAME,
            (c) -> null == c.authKeyUpdatePackets() ? "1048576" : c.authKeyUpdatePackets());
        value(rows, ctx, fresh, Configuration.PRINT_CONFIGURATION_PROP_NAME, MediaDriver.Context::printConfiguration);
        raw(rows, ctx, PropertyRegistry.UNKNOWN_PROPERTIES_PROP_NAME, PropertyRegistry.FAIL);
    }

    private static void engineRows(final MediaDriver.Context ctx, final Map<String, String[]> rows)
    {
        final Set<String> durations = new HashSet<>();
        for (final Field field : io.metaroce.datapath.settings.Configuration.class.getFields())
        {
            // The engine's durations are the settings whose names end in Ns, their constants in _NS_PROP_NAME.
            if (field.getName().endsWith("_NS_PROP_NAME"))
            {
                try
                {
                    durations.add((String)field.get(null));
                }
                catch (final IllegalAccessException ex)
                {
                    throw new IllegalStateException(ex);
                }
            }
        }
        final Map<String, Object> defaults = new HashMap<>();
        EngineSettings.fromSystemProperties().forEachValue(defaults::put);
        ctx.engineSettings().forEachValue((name, value) ->
        {
            final String text = durations.contains(name) ? formatNs((Long)value) : String.valueOf(value);
            final String source = Objects.equals(value, defaults.get(name)) ?
                PropertyRegistry.source(name) : CODE + " (engineSettings)";
            rows.put(name, new String[]{ text, source });
        });
    }

    private static <T> void value(
        final Map<String, String[]> rows,
        final MediaDriver.Context ctx,
        final MediaDriver.Context fresh,
        final String name,
        final Function<MediaDriver.Context, T> getter)
    {
        final Object value = getter.apply(ctx);
        final String source = Objects.equals(value, getter.apply(fresh)) ? PropertyRegistry.source(name) : CODE;
        rows.put(name, new String[]{ String.valueOf(value), source });
    }

    private static void duration(
        final Map<String, String[]> rows,
        final MediaDriver.Context ctx,
        final MediaDriver.Context fresh,
        final String name,
        final Function<MediaDriver.Context, Long> getter)
    {
        value(rows, ctx, fresh, name, (c) -> formatNs(getter.apply(c)));
    }

    private static void idle(
        final Map<String, String[]> rows, final MediaDriver.Context ctx, final String name, final IdleStrategy idle)
    {
        if (ctx.isSetInCode(name))
        {
            rows.put(name, new String[]{ idle.getClass().getSimpleName(), CODE });
        }
        else
        {
            raw(rows, ctx, name, Configuration.IDLE_STRATEGY_DEFAULT);
        }
    }

    private static void raw(
        final Map<String, String[]> rows, final MediaDriver.Context ctx, final String name, final String absent)
    {
        if (ctx.isSetInCode(name))
        {
            rows.put(name, new String[]{ "set in code", CODE });
            return;
        }

        final String value = System.getProperty(name);
        final boolean isSecret = Configuration.TERMINATION_TOKEN_PROP_NAME.equals(name);
        final String text = null == value || isSecret ? absent : value.trim();
        rows.put(name, new String[]{ text, PropertyRegistry.source(name) });
    }

    static String formatNs(final long ns)
    {
        if (0 == ns)
        {
            return "0";
        }
        if (0 == ns % 1_000_000_000L)
        {
            return ns / 1_000_000_000L + "s";
        }
        if (0 == ns % 1_000_000L)
        {
            return ns / 1_000_000L + "ms";
        }
        if (0 == ns % 1_000L)
        {
            return ns / 1_000L + "us";
        }
        return ns + "ns";
    }
}
