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

import java.util.ArrayList;
import java.util.List;

import io.metaroce.systemtest.probe.UdpProbe;

/**
 * Starts UDP probes inside a topology and reads their results.
 */
final class Probes
{
    static final int PORT = 40_000;
    static final long START_TIMEOUT_MS = 30_000;
    static final long RUN_TIMEOUT_MS = 60_000;

    private Probes()
    {
    }

    static JavaCommand probe(final String name, final String... args)
    {
        return new JavaCommand(UdpProbe.class.getName())
            .name(name)
            .jvmOption("-Xmx64m")
            .jvmOption("-XX:TieredStopAtLevel=1")
            .args(args);
    }

    static String endpoints(final NetnsTopology topology, final Host host, final int... planes)
    {
        final List<String> endpoints = new ArrayList<>();
        for (final int plane : planes)
        {
            endpoints.add(topology.address(host, plane) + ":" + PORT);
        }
        return String.join(",", endpoints);
    }

    static String addresses(final NetnsTopology topology, final Host host, final int... planes)
    {
        final List<String> addresses = new ArrayList<>();
        for (final int plane : planes)
        {
            addresses.add(topology.address(host, plane));
        }
        return String.join(",", addresses);
    }

    static int[] allPlanes(final NetnsTopology topology)
    {
        final int[] planes = new int[topology.planeCount()];
        for (int i = 0; i < planes.length; i++)
        {
            planes[i] = i;
        }
        return planes;
    }

    static NetnsProcess startReceiver(
        final NetnsTopology topology, final Host host, final String name, final boolean echo, final int... planes)
    {
        return startReceiver(topology, host, name, echo ? List.of("--echo") : List.of(), planes);
    }

    static NetnsProcess startReceiver(
        final NetnsTopology topology,
        final Host host,
        final String name,
        final List<String> options,
        final int... planes)
    {
        final List<String> args = new ArrayList<>(List.of("receive", "--bind", endpoints(topology, host, planes)));
        args.addAll(options);
        final NetnsProcess receiver = topology.javaProcess(host, probe(name, args.toArray(new String[0])));
        receiver.awaitLine("READY", START_TIMEOUT_MS);
        return receiver;
    }

    static NetnsProcess startSender(
        final NetnsTopology topology,
        final Host from,
        final Host to,
        final String name,
        final int[] planes,
        final String... options)
    {
        final List<String> args = new ArrayList<>(List.of(
            "send", "--to", endpoints(topology, to, planes), "--from", addresses(topology, from, planes)));
        args.addAll(List.of(options));
        final NetnsProcess sender = topology.javaProcess(from, probe(name, args.toArray(new String[0])));
        sender.awaitLine("READY", START_TIMEOUT_MS);
        return sender;
    }

    /**
     * Stop a probe through its input and return its RESULT lines in order.
     */
    static List<KeyValueLine> finish(final NetnsProcess probe)
    {
        probe.closeInput();
        final int exitCode = probe.awaitExit(RUN_TIMEOUT_MS);
        if (0 != exitCode)
        {
            throw new IllegalStateException(probe + " exited with " + exitCode);
        }
        probe.awaitLine("DONE", START_TIMEOUT_MS);
        return results(probe);
    }

    static List<KeyValueLine> results(final NetnsProcess probe)
    {
        final List<KeyValueLine> results = new ArrayList<>();
        for (final String line : probe.lines("RESULT "))
        {
            results.add(KeyValueLine.parse(line));
        }
        return results;
    }

    static KeyValueLine lastProgress(final NetnsProcess probe)
    {
        final String line = probe.lastLine("PROGRESS ");
        return null == line ? KeyValueLine.parse("PROGRESS attempts=0 sent=0 zero=0 errors=0 replies=0") :
            KeyValueLine.parse(line);
    }

    static UdpSocketStats socket(final NetnsTopology topology, final Host host, final int plane)
    {
        final String address = topology.address(host, plane);
        for (final UdpSocketStats socket : topology.udpSockets(host))
        {
            if (socket.address().equals(address) && socket.port() == PORT)
            {
                return socket;
            }
        }
        throw new IllegalStateException("no socket " + address + ":" + PORT + " in host " + host);
    }
}
