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
package io.metaroce.systemtest.network;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Command-line options of {@link StreamSource} and {@link StreamSink}, {@code --name value} pairs, validated when
 * parsed: an unknown, repeated, missing or malformed option is refused with an {@link IllegalArgumentException}
 * naming it.
 * <pre>
 * common:  --endpoints HOST:PORT[,HOST:PORT...]  the sink's endpoint on each plane (required)
 *          [--stream ID] [--count N] [--sizes LEN[,LEN...]] [--timeout-ms MS] [--progress-ms MS] [--dir PATH]
 *          [--channel-params KEY=VALUE[|KEY=VALUE...]]
 * source:  [--interfaces ADDR[,ADDR...]] [--rate MESSAGES_PER_S] [--close-linger-ms MS]
 * sink:    [--linger-ms MS] [--stall-ms MS]
 * </pre>
 */
public final class StreamOptions
{
    /**
     * Stream id used when {@code --stream} is not given.
     */
    public static final int DEFAULT_STREAM_ID = 1001;

    /**
     * Message lengths used in turn when {@code --sizes} is not given: small, one MTU, and fragmented ones.
     */
    public static final String DEFAULT_SIZES = "64,512,1300,3000,9000";

    private static final Set<String> COMMON = Set.of(
        "endpoints", "stream", "count", "sizes", "timeout-ms", "progress-ms", "dir", "channel-params");
    private static final Set<String> SOURCE = Set.of("interfaces", "rate", "close-linger-ms");
    private static final Set<String> SINK = Set.of("linger-ms", "stall-ms");

    private final String role;
    private final Map<String, String> values;
    private final String[] endpoints;
    private final int[] sizes;

    private StreamOptions(final String role, final Map<String, String> values)
    {
        this.role = role;
        this.values = values;
        final String endpointList = values.get("endpoints");
        if (null == endpointList || endpointList.isEmpty())
        {
            throw new IllegalArgumentException("--endpoints is required (the sink's HOST:PORT on every plane)");
        }
        this.endpoints = endpointList.split(",");
        this.sizes = parseSizes(values.getOrDefault("sizes", DEFAULT_SIZES));
        if (isSource() && count() < 1)
        {
            throw new IllegalArgumentException("--count must be at least 1 for the source");
        }
        if (null != values.get("interfaces") && values.get("interfaces").split(",").length != endpoints.length)
        {
            throw new IllegalArgumentException("--interfaces needs one address per endpoint (" + endpoints.length +
                "): " + values.get("interfaces"));
        }
        positive("timeout-ms", timeoutMs());
        positive("progress-ms", progressMs());
        positive("stall-ms", stallMs());
        streamId();
        rate();
        closeLingerMs();
        lingerMs();
    }

    /**
     * Parse the options of one role.
     *
     * @param role {@code source} or {@code sink}.
     * @param args the command line.
     * @return the options.
     * @throws IllegalArgumentException naming the option that is wrong.
     */
    public static StreamOptions parse(final String role, final String[] args)
    {
        final Set<String> roleOptions = "source".equals(role) ? SOURCE : SINK;
        final Map<String, String> values = new HashMap<>();
        for (int i = 0; i < args.length; i += 2)
        {
            final String arg = args[i];
            final String name = arg.startsWith("--") ? arg.substring(2) : "";
            if (!COMMON.contains(name) && !roleOptions.contains(name))
            {
                throw new IllegalArgumentException("unknown option for the " + role + ": " + arg);
            }
            if (i + 1 >= args.length)
            {
                throw new IllegalArgumentException("option " + arg + " needs a value");
            }
            if (null != values.put(name, args[i + 1]))
            {
                throw new IllegalArgumentException("option " + arg + " given twice");
            }
        }

        return new StreamOptions(role, values);
    }

    /**
     * The channel of the stream: the sink's endpoints, the source's interfaces (source only) and any extra
     * parameters.
     *
     * @return the {@code metaroce:udp} channel.
     */
    public String channel()
    {
        final StringBuilder channel = new StringBuilder("metaroce:udp?endpoint=").append(values.get("endpoints"));
        if (isSource() && null != values.get("interfaces"))
        {
            channel.append("|interface=").append(values.get("interfaces"));
        }
        if (isSource())
        {
            // the source reports its stream's statistics per path (StreamCounters)
            channel.append("|path-counters=true");
        }
        final String params = values.get("channel-params");
        if (null != params && !params.isEmpty())
        {
            channel.append('|').append(params);
        }

        return channel.toString();
    }

    /**
     * Number of planes: one per endpoint.
     *
     * @return the plane count.
     */
    public int planes()
    {
        return endpoints.length;
    }

    /**
     * Stream id.
     *
     * @return {@code --stream}, default {@link #DEFAULT_STREAM_ID}.
     */
    public int streamId()
    {
        return (int)longValue("stream", DEFAULT_STREAM_ID);
    }

    /**
     * Number of messages: the source sends this many; the sink expects this many, or with 0 reads until the end of
     * the stream.
     *
     * @return {@code --count}, default 0.
     */
    public long count()
    {
        return longValue("count", 0);
    }

    /**
     * Message lengths, header included, used in turn.
     *
     * @return {@code --sizes}, default {@link #DEFAULT_SIZES}.
     */
    public int[] sizes()
    {
        return sizes.clone();
    }

    /**
     * Longest message length.
     *
     * @return the largest of {@link #sizes()}.
     */
    public int maxSize()
    {
        return Arrays.stream(sizes).max().orElse(StreamMessageDescriptor.MIN_LENGTH);
    }

    /**
     * The source's target rate.
     *
     * @return {@code --rate} in messages per second, 0 (the default) for as fast as the stream takes them.
     */
    public long rate()
    {
        return longValue("rate", 0);
    }

    /**
     * Longest run, connection included; after it the app stops and reports a timeout.
     *
     * @return {@code --timeout-ms}, default 60000.
     */
    public long timeoutMs()
    {
        return longValue("timeout-ms", 60_000);
    }

    /**
     * Interval of the {@code PROGRESS} lines.
     *
     * @return {@code --progress-ms}, default 100.
     */
    public long progressMs()
    {
        return longValue("progress-ms", 100);
    }

    /**
     * How long the source keeps its driver after closing the publication, so that the close reaches the sink.
     *
     * @return {@code --close-linger-ms}, default 500.
     */
    public long closeLingerMs()
    {
        return longValue("close-linger-ms", 500);
    }

    /**
     * How long the sink waits for the end of the stream after the last expected message, still checking for
     * duplicates.
     *
     * @return {@code --linger-ms}, default 3000.
     */
    public long lingerMs()
    {
        return longValue("linger-ms", 3_000);
    }

    /**
     * Shortest pause between two messages that the sink reports as a {@code STALL} line.
     *
     * @return {@code --stall-ms}, default 20.
     */
    public long stallMs()
    {
        return longValue("stall-ms", 20);
    }

    /**
     * Directory of the app's embedded media driver.
     *
     * @return {@code --dir}, default {@code /dev/shm/metaroce-netns-<role>-<pid>}.
     */
    public String directory()
    {
        final String dir = values.get("dir");
        return null != dir ? dir : "/dev/shm/metaroce-netns-" + role + "-" + ProcessHandle.current().pid();
    }

    private boolean isSource()
    {
        return "source".equals(role);
    }

    private long longValue(final String name, final long defaultValue)
    {
        final String value = values.get(name);
        if (null == value)
        {
            return defaultValue;
        }
        try
        {
            final long parsed = Long.parseLong(value);
            if (parsed < 0 || ("stream".equals(name) && (parsed < 1 || parsed > Integer.MAX_VALUE)))
            {
                throw new IllegalArgumentException("--" + name + " is out of range: " + value);
            }
            return parsed;
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("--" + name + " is not a number: " + value, ex);
        }
    }

    private static void positive(final String name, final long value)
    {
        if (value <= 0)
        {
            throw new IllegalArgumentException("--" + name + " must be positive: " + value);
        }
    }

    private static int[] parseSizes(final String list)
    {
        final String[] parts = list.split(",");
        final int[] sizes = new int[parts.length];
        for (int i = 0; i < parts.length; i++)
        {
            try
            {
                sizes[i] = Integer.parseInt(parts[i].trim());
            }
            catch (final NumberFormatException ex)
            {
                throw new IllegalArgumentException("--sizes is not a list of numbers: " + list, ex);
            }
            if (sizes[i] < StreamMessageDescriptor.MIN_LENGTH)
            {
                throw new IllegalArgumentException("--sizes: every length must be at least " +
                    StreamMessageDescriptor.MIN_LENGTH + " (the header): " + list);
            }
        }

        return sizes;
    }
}
