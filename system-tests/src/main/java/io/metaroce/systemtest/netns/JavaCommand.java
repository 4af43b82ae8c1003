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

import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What to run in a JVM inside a namespace: main class, arguments, system properties, extra JVM options and a name
 * for its output files. The JVM always gets {@link NetnsConfiguration#JVM_OPTIONS} (the Agrona export among them)
 * and, unless set here, the class path of the test JVM.
 */
public final class JavaCommand
{
    private final String mainClass;
    private final List<String> args = new ArrayList<>();
    private final List<String> jvmOptions = new ArrayList<>();
    private final Map<String, String> properties = new LinkedHashMap<>();
    private String name;
    private String classPath;

    /**
     * A command that runs a main class.
     *
     * @param mainClass fully qualified name of the class with {@code main}.
     */
    public JavaCommand(final String mainClass)
    {
        if (null == mainClass || mainClass.isBlank())
        {
            throw new IllegalArgumentException("mainClass must be a class name");
        }
        this.mainClass = mainClass;
    }

    /**
     * Name of the process, used for its output files {@code <name>.out} and {@code <name>.err}; by default the host
     * letter, the main class's simple name and a sequence number.
     *
     * @param name letters, digits, '-', '_' and '.'.
     * @return this for a fluent API.
     */
    public JavaCommand name(final String name)
    {
        if (!name.matches("[A-Za-z0-9._-]{1,64}"))
        {
            throw new IllegalArgumentException("name '" + name + "' must be 1-64 of [A-Za-z0-9._-]");
        }
        this.name = name;
        return this;
    }

    /**
     * Name of the process.
     *
     * @return the name, or null for the default.
     */
    public String name()
    {
        return name;
    }

    /**
     * Add a system property ({@code -Dkey=value}).
     *
     * @param key   property name.
     * @param value property value.
     * @return this for a fluent API.
     */
    public JavaCommand property(final String key, final String value)
    {
        properties.put(key, value);
        return this;
    }

    /**
     * Add system properties.
     *
     * @param properties names and values.
     * @return this for a fluent API.
     */
    public JavaCommand properties(final Map<String, String> properties)
    {
        this.properties.putAll(properties);
        return this;
    }

    /**
     * Add a JVM option, for example {@code -Xmx64m}, after the default options.
     *
     * @param option the option.
     * @return this for a fluent API.
     */
    public JavaCommand jvmOption(final String option)
    {
        jvmOptions.add(option);
        return this;
    }

    /**
     * Append program arguments.
     *
     * @param args arguments passed to {@code main}.
     * @return this for a fluent API.
     */
    public JavaCommand args(final String... args)
    {
        this.args.addAll(Arrays.asList(args));
        return this;
    }

    /**
     * Use a class path other than the test JVM's.
     *
     * @param classPath the class path.
     * @return this for a fluent API.
     */
    public JavaCommand classPath(final String classPath)
    {
        this.classPath = classPath;
        return this;
    }

    /**
     * The main class.
     *
     * @return its fully qualified name.
     */
    public String mainClass()
    {
        return mainClass;
    }

    /**
     * The command line: this JVM's {@code java}, default and extra options, properties, class path, main class and
     * arguments.
     *
     * @return the command line.
     */
    public List<String> commandLine()
    {
        final List<String> line = new ArrayList<>();
        line.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
        line.addAll(NetnsConfiguration.JVM_OPTIONS);
        line.addAll(jvmOptions);
        for (final Map.Entry<String, String> property : properties.entrySet())
        {
            line.add("-D" + property.getKey() + "=" + property.getValue());
        }
        line.add("-cp");
        line.add(null != classPath ? classPath : NetnsConfiguration.classPath());
        line.add(mainClass);
        line.addAll(args);

        return line;
    }
}
