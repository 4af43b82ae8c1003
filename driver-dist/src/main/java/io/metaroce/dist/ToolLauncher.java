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
package io.metaroce.dist;

import io.metaroce.client.config.PropertyRegistry;
import io.metaroce.client.exceptions.ConfigurationException;
import io.metaroce.driver.MediaDriver;
import io.metaroce.driver.security.KeyTool;
import io.metaroce.samples.BacklogStat;
import io.metaroce.samples.BasicPublisher;
import io.metaroce.samples.BasicSubscriber;
import io.metaroce.samples.ErrorStat;
import io.metaroce.samples.IpcDemo;
import io.metaroce.samples.IpcPingPong;
import io.metaroce.samples.IpcThroughput;
import io.metaroce.samples.LossStat;
import io.metaroce.samples.MetaRoceStat;
import io.metaroce.samples.MultipathDemo;
import io.metaroce.samples.PrometheusExporter;
import io.metaroce.samples.StreamStat;
import io.metaroce.samples.WireCodecDemo;

import java.io.File;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;

/**
 * The main class of {@code metaroce-driver.jar}: {@code java -jar metaroce-driver.jar [file.properties ...]} runs a
 * media driver, {@code java -jar metaroce-driver.jar <tool> [args ...]} runs one of the {@link #TOOLS}, and
 * {@code --help} lists them. The {@code ./metaroce} script and the distribution's launcher run every tool through
 * here, so {@link #TOOLS} is the one list of them.
 */
public final class ToolLauncher
{
    /**
     * A tool's entry point: its {@code main}.
     */
    @FunctionalInterface
    public interface Main
    {
        /**
         * Run the tool.
         *
         * @param args the arguments after the tool's name.
         * @throws Exception whatever the tool's {@code main} throws.
         */
        void run(String[] args) throws Exception;
    }

    /**
     * A tool of the jar.
     *
     * @param name        what the command line calls it.
     * @param arguments   its arguments, for the usage line.
     * @param description one line.
     * @param main        its entry point.
     */
    public record Tool(String name, String arguments, String description, Main main)
    {
    }

    /**
     * Every tool of the jar, in the order {@code --help} lists them; the first is what runs when no tool is named.
     */
    public static final List<Tool> TOOLS = List.of(
        new Tool("driver", "[file.properties ...]",
            "run a standalone media driver until SIGINT or SIGTERM", MediaDriver::main),
        new Tool("stat", "[--once] [filters]",
            "print the counters of a running driver", MetaRoceStat::main),
        new Tool("errors", "", "print the distinct error log of a driver", ErrorStat::main),
        new Tool("streams", "[--stream ID]",
            "print a driver's publications, images and subscriptions per stream, with lag",
            StreamStat::main),
        new Tool("backlog", "", "print the sender and receiver backlog of a driver per stream", BacklogStat::main),
        new Tool("loss", "", "print the loss report of a driver (network streams)", LossStat::main),
        new Tool("exporter", "[--port N]",
            "serve a running driver's counters to Prometheus over HTTP", PrometheusExporter::main),
        new Tool("keygen", "<file>",
            "write a new driver private key (owner-only file) and print its public key", KeyTool::keygen),
        new Tool("pubkey", "<file>", "print the public key of a driver's private key file", KeyTool::pubkey),
        new Tool("publisher", "", "publish messages through a running driver", BasicPublisher::main),
        new Tool("subscriber", "", "print the messages of a stream of a running driver", BasicSubscriber::main),
        new Tool("demo", "", "the multipath demo: two embedded drivers on loopback", MultipathDemo::main),
        new Tool("ipc-demo", "", "the IPC demo: message rate and round-trip latency", IpcDemo::main),
        new Tool("ping-pong", "", "IPC round-trip latency (embedded driver)", IpcPingPong::main),
        new Tool("throughput", "", "IPC throughput (embedded driver)", IpcThroughput::main),
        new Tool("wire-demo", "", "the MetaRoCE wire codec demo", WireCodecDemo::main));

    private ToolLauncher()
    {
    }

    /**
     * Run the tool the first argument names, or a media driver when it names none.
     *
     * @param args {@code [file.properties ...]}, {@code <tool> [args ...]} or {@code --help}.
     * @throws Exception whatever the tool throws.
     */
    public static void main(final String[] args) throws Exception
    {
        if (args.length > 0 && ("--help".equals(args[0]) || "-h".equals(args[0]) || "help".equals(args[0])))
        {
            printUsage(System.out);
            return;
        }

        if (0 == args.length || looksLikePropertiesFile(args[0]))
        {
            TOOLS.get(0).main().run(args);
            return;
        }

        final Tool tool = find(args[0]);
        if (null == tool)
        {
            System.err.println("metaroce: unknown tool '" + args[0] + "'");
            printUsage(System.err);
            System.exit(2);
            return;
        }

        // the driver checks its properties itself; a tool that reads the CnC file alone would otherwise take a
        // misspelled -Dmetaroce.* silently and look at the wrong driver
        try
        {
            PropertyRegistry.checkSystemProperties("the " + tool.name() + " tool", System.err);
        }
        catch (final ConfigurationException ex)
        {
            System.err.println("metaroce " + tool.name() + ": " + ex.getMessage());
            System.exit(2);
            return;
        }

        tool.main().run(Arrays.copyOfRange(args, 1, args.length));
    }

    /**
     * The tool of a name.
     *
     * @param name of the tool.
     * @return the tool, or null if there is none of that name.
     */
    public static Tool find(final String name)
    {
        for (final Tool tool : TOOLS)
        {
            if (tool.name().equals(name))
            {
                return tool;
            }
        }
        return null;
    }

    /**
     * Print how to call the jar and the list of tools.
     *
     * @param out where to print.
     */
    public static void printUsage(final PrintStream out)
    {
        out.println("usage: java [-Dmetaroce.<setting>=<value> ...] -jar metaroce-driver.jar [file.properties ...]");
        out.println("       java [-Dmetaroce.<setting>=<value> ...] -jar metaroce-driver.jar <tool> [args ...]");
        out.println("With no tool, or a properties file first, it runs a media driver. <tool> --help describes a " +
            "tool. Tools:");
        for (final Tool tool : TOOLS)
        {
            final String call = tool.name() + (tool.arguments().isEmpty() ? "" : " " + tool.arguments());
            out.printf("  %-32s %s%n", call, tool.description());
        }
    }

    private static boolean looksLikePropertiesFile(final String arg)
    {
        // A tool name is a plain word: anything that reads as a file, a path or a URL goes to the driver.
        return !arg.startsWith("-") && null == find(arg) &&
            (arg.endsWith(".properties") || arg.contains("/") || arg.contains(":") || new File(arg).isFile());
    }
}
