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
package io.metaroce.systemtest.probe;

import java.io.IOException;
import java.io.PrintStream;
import java.util.Set;

/**
 * A tiny UDP probe for checking a topology's planes without the MetaRoCE driver: a paced, never-blocking sender and
 * a selector-driven receiver that counts (and optionally echoes) what arrives per endpoint. Both print
 * {@code key=value} lines: {@code READY} once their sockets are open, {@code PROGRESS} periodically if asked,
 * {@code RESULT} lines and {@code DONE} at the end. Both stop at the end of standard input (how the harness stops
 * them, and how an orphan stops when its harness dies) or after {@code --max-ms}.
 * <pre>
 * UdpProbe receive --bind ADDR:PORT[,ADDR:PORT...] [--echo] [--rcvbuf BYTES] [--stall-ms MS] [--progress-ms MS]
 *                 [--max-ms MS]
 * UdpProbe send --to ADDR:PORT[,ADDR:PORT...] [--from ADDR[,ADDR...]] --rate PACKETS_PER_S [--size BYTES]
 *               [--count PER_TARGET] [--duration-ms MS] [--progress-ms MS] [--linger-ms MS] [--max-ms MS]
 * </pre>
 * The sender sends to its targets in turn at the total rate, through one socket per target bound to the
 * corresponding {@code --from} address; it stops after {@code --count} datagrams per target or {@code --duration-ms},
 * then keeps reading echoes for {@code --linger-ms}. The receiver's {@code --stall-ms} stops reading for that long
 * after the first datagram (with a small {@code --rcvbuf}: receive-buffer loss on demand). Exit status: 0 when done,
 * 2 on bad arguments, 1 on an I/O failure outside sending (for example a bind).
 */
public final class UdpProbe
{
    private static final long MAX_MS_DEFAULT = 120_000;
    private static final int RCVBUF_DEFAULT = 4 * 1024 * 1024;

    private UdpProbe()
    {
    }

    /**
     * Run the probe.
     *
     * @param args {@code receive} or {@code send} and their options.
     */
    public static void main(final String[] args)
    {
        final PrintStream out = System.out;
        try
        {
            if (args.length > 0 && "receive".equals(args[0]))
            {
                receiver(args, out).run();
            }
            else if (args.length > 0 && "send".equals(args[0]))
            {
                sender(args, out).run();
            }
            else
            {
                throw new IllegalArgumentException("first argument must be receive or send");
            }
        }
        catch (final IllegalArgumentException ex)
        {
            System.err.println("UdpProbe: " + ex.getMessage());
            System.exit(2);
        }
        catch (final IOException ex)
        {
            System.err.println("UdpProbe: " + ex);
            System.exit(1);
        }
        out.flush();
    }

    private static ProbeReceiver receiver(final String[] args, final PrintStream out)
    {
        final ProbeArguments arguments = new ProbeArguments(
            args, 1, Set.of("bind", "rcvbuf", "progress-ms", "stall-ms", "max-ms"), Set.of("echo"));

        return new ProbeReceiver(
            arguments.socketAddresses("bind"),
            arguments.flag("echo"),
            (int)arguments.longValue("rcvbuf", RCVBUF_DEFAULT, 4096, Integer.MAX_VALUE),
            arguments.longValue("max-ms", MAX_MS_DEFAULT, 1, Long.MAX_VALUE / 2_000_000),
            arguments.longValue("progress-ms", 0, 0, Long.MAX_VALUE / 2_000_000),
            arguments.longValue("stall-ms", 0, 0, Long.MAX_VALUE / 2_000_000),
            StopSignal.onEndOf(System.in),
            out);
    }

    private static ProbeSender sender(final String[] args, final PrintStream out)
    {
        final ProbeArguments arguments = new ProbeArguments(
            args,
            1,
            Set.of("to", "from", "rate", "size", "count", "duration-ms", "progress-ms", "linger-ms", "max-ms"),
            Set.of());
        final long maxMs = arguments.longValue("max-ms", MAX_MS_DEFAULT, 1, Long.MAX_VALUE / 2_000_000);

        return new ProbeSender(
            arguments.socketAddresses("to"),
            arguments.addresses("from"),
            arguments.longValue("rate", 0, 1, 10_000_000),
            (int)arguments.longValue("size", 64, ProbeDatagramDescriptor.HEADER_LENGTH, 65_507),
            arguments.longValue("count", 0, 0, Long.MAX_VALUE / 1024),
            Math.min(maxMs, arguments.longValue("duration-ms", maxMs, 1, Long.MAX_VALUE / 2_000_000)),
            arguments.longValue("progress-ms", 0, 0, Long.MAX_VALUE / 2_000_000),
            arguments.longValue("linger-ms", 0, 0, Long.MAX_VALUE / 2_000_000),
            StopSignal.onEndOf(System.in),
            out);
    }
}
