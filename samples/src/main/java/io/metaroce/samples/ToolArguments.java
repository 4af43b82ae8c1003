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
package io.metaroce.samples;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The command line of a tool or sample: its options ({@code --name} flags and {@code --name value} or
 * {@code --name=value} options, each optionally backed by a system property), the system properties it reads, its
 * operands, and the usage text printed by {@code --help} or {@code -h} (exit status 0) and on a bad command line
 * (exit status 2). An option given on the command line wins over its property, which wins over the default.
 * <p>
 * Typical use in a {@code main}:
 * <pre>{@code
 * final ToolArguments arguments = new ToolArguments("stat", "Prints a driver's counters.")
 *     .flag("once", "print once and exit");
 * final int status = arguments.parse(args, System.out, System.err);
 * if (ToolArguments.CONTINUE != status)
 * {
 *     System.exit(status);
 * }
 * }</pre>
 * Not thread safe; one instance per command line.
 */
public final class ToolArguments
{
    /**
     * {@link #parse} result: the command line is good, run the tool.
     */
    public static final int CONTINUE = -1;

    /**
     * Exit status of a tool that did its work, and of {@code --help}.
     */
    public static final int EXIT_OK = 0;

    /**
     * Exit status of a tool that could not do its work (no driver, unreadable file).
     */
    public static final int EXIT_FAILURE = 1;

    /**
     * Exit status of a bad command line: an unknown option, a missing or malformed value.
     */
    public static final int EXIT_USAGE = 2;

    private static final int WIDTH = 100;
    private static final int NAME_COLUMN = 24;

    private final String command;
    private final String summary;
    private final Map<String, Option> options = new LinkedHashMap<>();
    private final Map<String, String[]> properties = new LinkedHashMap<>();
    private final List<String> notes = new ArrayList<>();
    private final Map<String, String> values = new HashMap<>();
    private final List<String> operands = new ArrayList<>();
    private String operandName;
    private String operandDescription;

    private record Option(String name, String valueName, String property, String defaultValue, String description)
    {
        boolean isFlag()
        {
            return null == valueName;
        }
    }

    /**
     * A command line with no options yet.
     *
     * @param command how the user runs the tool, for example {@code ./metaroce stat}.
     * @param summary what the tool does, one or two sentences.
     */
    public ToolArguments(final String command, final String summary)
    {
        this.command = command;
        this.summary = summary;
    }

    /**
     * Add a flag, {@code --name}, without a value.
     *
     * @param name        of the flag, without the dashes.
     * @param description for the usage.
     * @return this for a fluent API.
     */
    public ToolArguments flag(final String name, final String description)
    {
        return add(new Option(name, null, null, null, description));
    }

    /**
     * Add an option that takes a value, {@code --name value}.
     *
     * @param name         of the option, without the dashes.
     * @param valueName    of its value in the usage, for example {@code ID}.
     * @param defaultValue when neither the option nor its property is given, null for none.
     * @param description  for the usage.
     * @return this for a fluent API.
     */
    public ToolArguments option(
        final String name, final String valueName, final String defaultValue, final String description)
    {
        return add(new Option(name, valueName, null, defaultValue, description));
    }

    /**
     * Add an option that takes a value and is backed by a system property: {@code --name value} overrides
     * {@code -Dproperty=value}, which overrides the default.
     *
     * @param name         of the option, without the dashes.
     * @param valueName    of its value in the usage.
     * @param property     system property read when the option is not given.
     * @param defaultValue when neither is given.
     * @param description  for the usage.
     * @return this for a fluent API.
     */
    public ToolArguments option(
        final String name,
        final String valueName,
        final String property,
        final String defaultValue,
        final String description)
    {
        return add(new Option(name, valueName, property, defaultValue, description));
    }

    /**
     * Document a system property the tool reads that has no option.
     *
     * @param name         of the property.
     * @param defaultValue shown in the usage, null for none.
     * @param description  for the usage.
     * @return this for a fluent API.
     */
    public ToolArguments property(final String name, final String defaultValue, final String description)
    {
        properties.put(name, new String[]{ defaultValue, description });
        return this;
    }

    /**
     * Accept operands (arguments that are not options).
     *
     * @param name        of an operand in the usage, for example {@code scenario}.
     * @param description for the usage.
     * @return this for a fluent API.
     */
    public ToolArguments operands(final String name, final String description)
    {
        operandName = name;
        operandDescription = description;
        return this;
    }

    /**
     * Add a paragraph printed after the options and properties, for example the output format.
     *
     * @param note the text.
     * @return this for a fluent API.
     */
    public ToolArguments note(final String note)
    {
        notes.add(note);
        return this;
    }

    /**
     * Parse a command line: on {@code --help} or {@code -h} print the usage to {@code out} and return
     * {@link #EXIT_OK}; on an unknown option, a missing value or an unexpected operand print what is wrong and the
     * usage to {@code err} and return {@link #EXIT_USAGE}; otherwise return {@link #CONTINUE}.
     *
     * @param args the command line.
     * @param out  where the usage goes on request.
     * @param err  where errors and the usage go on a bad command line.
     * @return {@link #CONTINUE}, or the exit status.
     */
    public int parse(final String[] args, final PrintStream out, final PrintStream err)
    {
        values.clear();
        operands.clear();
        for (final String arg : args)
        {
            if ("--help".equals(arg) || "-h".equals(arg))
            {
                printUsage(out);
                return EXIT_OK;
            }
        }

        for (int i = 0; i < args.length; i++)
        {
            final String arg = args[i];
            if (!arg.startsWith("-") || "-".equals(arg))
            {
                if (null == operandName)
                {
                    return usageError(err, "unexpected argument '" + arg + "'");
                }
                operands.add(arg);
                continue;
            }

            final int equals = arg.indexOf('=');
            final String name = arg.substring(arg.startsWith("--") ? 2 : 1, equals > 0 ? equals : arg.length());
            final Option option = options.get(name);
            if (null == option || !arg.startsWith("--"))
            {
                return usageError(err, "unknown option '" + arg + "'");
            }
            if (option.isFlag())
            {
                if (equals > 0)
                {
                    return usageError(err, "--" + name + " takes no value");
                }
                values.put(name, "true");
            }
            else if (equals > 0)
            {
                values.put(name, arg.substring(equals + 1));
            }
            else if (i + 1 < args.length)
            {
                values.put(name, args[++i]);
            }
            else
            {
                return usageError(err, "--" + name + " needs a value (" + option.valueName() + ")");
            }
        }

        return CONTINUE;
    }

    /**
     * Is a flag on the command line?
     *
     * @param name of the flag.
     * @return true if it was given.
     */
    public boolean has(final String name)
    {
        requireOption(name);
        return values.containsKey(name);
    }

    /**
     * Value of an option: from the command line, else from its property, else its default.
     *
     * @param name of the option.
     * @return the value, or null when none applies.
     */
    public String value(final String name)
    {
        final Option option = requireOption(name);
        final String value = values.get(name);
        if (null != value)
        {
            return value;
        }

        return null != option.property() ? System.getProperty(option.property(), option.defaultValue()) :
            option.defaultValue();
    }

    /**
     * Integer value of an option.
     *
     * @param name of the option.
     * @return the value.
     * @throws IllegalArgumentException naming the option (and its property) if the value is not an integer.
     */
    public int intValue(final String name)
    {
        final String value = value(name);
        try
        {
            return Integer.parseInt(value.trim());
        }
        catch (final RuntimeException ex)
        {
            throw new IllegalArgumentException(describe(name) + " must be an integer: '" + value + "'", ex);
        }
    }

    /**
     * Long value of an option.
     *
     * @param name of the option.
     * @return the value.
     * @throws IllegalArgumentException naming the option (and its property) if the value is not an integer.
     */
    public long longValue(final String name)
    {
        final String value = value(name);
        try
        {
            return Long.parseLong(value.trim());
        }
        catch (final RuntimeException ex)
        {
            throw new IllegalArgumentException(describe(name) + " must be an integer: '" + value + "'", ex);
        }
    }

    /**
     * Operands given on the command line, in order.
     *
     * @return the operands, empty when none.
     */
    public List<String> operands()
    {
        return operands;
    }

    /**
     * The option and its property, for messages: {@code --rate (metaroce.sample.rate)}.
     *
     * @param name of the option.
     * @return the description.
     */
    public String describe(final String name)
    {
        final Option option = requireOption(name);
        return "--" + name + (null != option.property() ? " (" + option.property() + ")" : "");
    }

    /**
     * Print a bad value's message and the usage and return {@link #EXIT_USAGE}.
     *
     * @param err     where to print.
     * @param message what is wrong, naming the option.
     * @return {@link #EXIT_USAGE}.
     */
    public int usageError(final PrintStream err, final String message)
    {
        err.println(command + ": " + message);
        printUsage(err);
        return EXIT_USAGE;
    }

    /**
     * Print the usage: the command line, the summary, every option with its property and default, every property
     * and the notes.
     *
     * @param out where to print.
     */
    public void printUsage(final PrintStream out)
    {
        final StringBuilder line = new StringBuilder("Usage: ").append(command).append(" [--help]");
        for (final Option option : options.values())
        {
            line.append(" [--").append(option.name());
            if (!option.isFlag())
            {
                line.append('\u00A0').append(option.valueName()); // no-break space: the wrap keeps the pair
            }
            line.append(']');
        }
        if (null != operandName)
        {
            line.append(" [").append(operandName).append("...]");
        }
        out.print(wrap(line.toString(), "    ").replace('\u00A0', ' '));
        out.println();
        out.print(wrap(summary, ""));
        out.println();
        out.println("Options:");
        printEntry(out, "-h, --help", "print this help and exit");
        for (final Option option : options.values())
        {
            final StringBuilder text = new StringBuilder(option.description());
            if (null != option.property())
            {
                text.append("; property ").append(option.property());
            }
            if (null != option.defaultValue())
            {
                text.append(" (default ").append(option.defaultValue()).append(')');
            }
            printEntry(out, "--" + option.name() + (option.isFlag() ? "" : " " + option.valueName()), text.toString());
        }
        if (null != operandName)
        {
            printEntry(out, operandName + "...", operandDescription);
        }
        if (!properties.isEmpty())
        {
            out.println();
            out.println("Properties (-Dname=value):");
            for (final Map.Entry<String, String[]> entry : properties.entrySet())
            {
                final String defaultValue = entry.getValue()[0];
                printEntry(out, entry.getKey(), entry.getValue()[1] +
                    (null != defaultValue ? " (default " + defaultValue + ")" : ""));
            }
        }
        for (final String note : notes)
        {
            out.println();
            out.print(wrap(note, ""));
        }
    }

    private ToolArguments add(final Option option)
    {
        if ("help".equals(option.name()) || null != options.put(option.name(), option))
        {
            throw new IllegalArgumentException("option --" + option.name() + " defined twice");
        }
        return this;
    }

    private Option requireOption(final String name)
    {
        final Option option = options.get(name);
        if (null == option)
        {
            throw new IllegalArgumentException("no option --" + name + " defined for " + command);
        }
        return option;
    }

    private static void printEntry(final PrintStream out, final String name, final String description)
    {
        final String indent = " ".repeat(2 + NAME_COLUMN + 1);
        final String head = name.length() <= NAME_COLUMN ?
            String.format("  %-" + NAME_COLUMN + "s %s", name, description) :
            "  " + name + System.lineSeparator() + indent + description;
        out.print(wrap(head, indent));
    }

    /**
     * Break a text into lines of at most {@link #WIDTH} characters at spaces, continuation lines indented.
     */
    private static String wrap(final String text, final String indent)
    {
        final StringBuilder wrapped = new StringBuilder();
        for (final String paragraph : text.split("\\R"))
        {
            int lineStart = wrapped.length();
            boolean first = true;
            for (final String word : paragraph.split(" "))
            {
                if (!first && wrapped.length() - lineStart + 1 + word.length() > WIDTH)
                {
                    wrapped.append(System.lineSeparator());
                    lineStart = wrapped.length();
                    wrapped.append(indent).append(word);
                }
                else
                {
                    wrapped.append(first ? "" : " ").append(word);
                }
                first = false;
            }
            wrapped.append(System.lineSeparator());
        }

        return wrapped.toString();
    }
}
