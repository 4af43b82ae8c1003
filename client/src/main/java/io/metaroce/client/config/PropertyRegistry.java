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
package io.metaroce.client.config;

import io.metaroce.client.exceptions.ConfigurationException;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code metaroce.*} property names known to this process, the union of every {@link PropertyNames} provider on
 * the class path, and the check a client or driver runs at start: every {@code metaroce.*} system property (which
 * includes the keys of the properties files loaded with {@link #loadPropertiesFiles(String...)}) must be known.
 * An unknown one fails the start with a message naming it, where it came from and the nearest known name, or, with
 * {@value #UNKNOWN_PROPERTIES_PROP_NAME}{@code =warn}, prints that message once and carries on.
 * <p>
 * Thread safe; meant for start-up, not for a hot path.
 */
public final class PropertyRegistry
{
    /**
     * Prefix of every property of the project.
     */
    public static final String PREFIX = "metaroce.";

    /**
     * Property: what an unknown {@code metaroce.*} property does at start, {@value #FAIL} (the default) or
     * {@value #WARN}.
     */
    public static final String UNKNOWN_PROPERTIES_PROP_NAME = "metaroce.unknown.properties";

    /**
     * Value of {@link #UNKNOWN_PROPERTIES_PROP_NAME}: an unknown property fails the start.
     */
    public static final String FAIL = "fail";

    /**
     * Value of {@link #UNKNOWN_PROPERTIES_PROP_NAME}: an unknown property is reported once and ignored.
     */
    public static final String WARN = "warn";

    private static final Map<String, String> FILE_SOURCES = new ConcurrentHashMap<>();
    private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();

    private PropertyRegistry()
    {
    }

    /**
     * Every known property name with the component that reads it, from the providers on the class path.
     *
     * @return names in alphabetical order, each mapped to its component (the first provider's when two list it).
     * @throws ConfigurationException if a provider cannot be loaded.
     */
    public static Map<String, String> names()
    {
        final TreeMap<String, String> names = new TreeMap<>();
        final ClassLoader own = PropertyRegistry.class.getClassLoader();
        addNames(names, own);
        final ClassLoader context = Thread.currentThread().getContextClassLoader();
        if (null != context && context != own)
        {
            addNames(names, context);
        }

        return names;
    }

    /**
     * The values of the {@code public static final String} fields named {@code *_PROP_NAME} of some classes: the
     * property names a {@code Configuration} class declares.
     *
     * @param classes to read.
     * @return the names, in declaration order of each class.
     */
    public static List<String> declaredNames(final Class<?>... classes)
    {
        final List<String> names = new ArrayList<>();
        for (final Class<?> type : classes)
        {
            for (final Field field : type.getFields())
            {
                final int modifiers = field.getModifiers();
                if (Modifier.isStatic(modifiers) && Modifier.isFinal(modifiers) && String.class == field.getType() &&
                    field.getName().endsWith("_PROP_NAME"))
                {
                    try
                    {
                        names.add((String)field.get(null));
                    }
                    catch (final IllegalAccessException ex)
                    {
                        throw new IllegalStateException(field + " is public and cannot be read", ex);
                    }
                }
            }
        }

        return names;
    }

    /**
     * Check every {@code metaroce.*} system property against the known names.
     *
     * @param component the one that checks, for the message: {@code the media driver}, {@code the client}.
     * @param warnings  where a warning goes in {@value #WARN} mode.
     * @throws ConfigurationException naming each unknown property and the nearest known name, in {@value #FAIL}
     *                                mode, or naming {@link #UNKNOWN_PROPERTIES_PROP_NAME} if its value is neither.
     */
    public static void checkSystemProperties(final String component, final PrintStream warnings)
    {
        check(component, System.getProperties(), names().keySet(), warnings);
    }

    /**
     * Check the {@code metaroce.*} entries of a set of properties against some known names, as
     * {@link #checkSystemProperties(String, PrintStream)} does with the system properties and every known name.
     *
     * @param component  the one that checks, for the message.
     * @param properties to check, {@value #UNKNOWN_PROPERTIES_PROP_NAME} among them.
     * @param known      names.
     * @param warnings   where a warning goes in {@value #WARN} mode.
     * @throws ConfigurationException naming each unknown property and the nearest known name, in {@value #FAIL}
     *                                mode, or naming {@link #UNKNOWN_PROPERTIES_PROP_NAME} if its value is neither.
     */
    public static void check(
        final String component, final Properties properties, final Set<String> known, final PrintStream warnings)
    {
        final String mode = properties.getProperty(UNKNOWN_PROPERTIES_PROP_NAME, FAIL).trim();
        if (!FAIL.equals(mode) && !WARN.equals(mode))
        {
            throw new ConfigurationException(UNKNOWN_PROPERTIES_PROP_NAME + " must be " + FAIL + " or " + WARN +
                ": " + mode);
        }

        final List<String> unknown = new ArrayList<>();
        for (final String name : new TreeSet<>(properties.stringPropertyNames()))
        {
            if (name.startsWith(PREFIX) && !known.contains(name))
            {
                unknown.add(name);
            }
        }

        if (unknown.isEmpty())
        {
            return;
        }

        if (FAIL.equals(mode))
        {
            final StringBuilder message = new StringBuilder(component).append(" does not know ")
                .append(1 == unknown.size() ? "the property " : "the properties ");
            for (int i = 0; i < unknown.size(); i++)
            {
                message.append(0 == i ? "" : "; ").append(describe(unknown.get(i), known));
            }
            message.append(" (every setting is listed in docs/driver.md; ").append(UNKNOWN_PROPERTIES_PROP_NAME)
                .append('=').append(WARN).append(" starts anyway)");
            throw new ConfigurationException(message.toString());
        }

        for (final String name : unknown)
        {
            if (WARNED.add(name))
            {
                warnings.println("metaroce: warning: " + component + " ignores the unknown property " +
                    describe(name, known));
            }
        }
    }

    /**
     * The known name nearest to a name, by edit distance (insertions, deletions, substitutions and transpositions of
     * adjacent characters each count one; the alphabetically first of equally near names wins).
     *
     * @param name  to compare.
     * @param known names to choose from.
     * @return the nearest, or null when {@code known} is empty.
     */
    public static String nearest(final String name, final Collection<String> known)
    {
        String nearest = null;
        int nearestDistance = Integer.MAX_VALUE;
        for (final String candidate : new TreeSet<>(known))
        {
            final int distance = editDistance(name, candidate);
            if (distance < nearestDistance)
            {
                nearest = candidate;
                nearestDistance = distance;
            }
        }

        return nearest;
    }

    /**
     * Edit distance of two strings: the optimal string alignment distance (Levenshtein plus adjacent
     * transpositions).
     *
     * @param a one string.
     * @param b the other.
     * @return the number of edits that turn one into the other.
     */
    public static int editDistance(final String a, final String b)
    {
        final int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++)
        {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++)
        {
            d[0][j] = j;
        }

        for (int i = 1; i <= a.length(); i++)
        {
            for (int j = 1; j <= b.length(); j++)
            {
                final int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                int value = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1))
                {
                    value = Math.min(value, d[i - 2][j - 2] + 1);
                }
                d[i][j] = value;
            }
        }

        return d[a.length()][b.length()];
    }

    /**
     * Load properties files into the system properties, in order (a later file's value replaces an earlier one and
     * a {@code -D} value), and remember which file set each property for {@link #source(String)}. Each name is a
     * file, a URL or a class-path resource.
     *
     * @param names of the files.
     * @throws ConfigurationException naming a file that does not exist or cannot be read, before any is loaded.
     */
    public static void loadPropertiesFiles(final String... names)
    {
        final List<Properties> loaded = new ArrayList<>();
        for (final String name : names)
        {
            loaded.add(read(name));
        }

        for (int i = 0; i < names.length; i++)
        {
            for (final String key : loaded.get(i).stringPropertyNames())
            {
                System.setProperty(key, loaded.get(i).getProperty(key));
                FILE_SOURCES.put(key, names[i]);
            }
        }
    }

    /**
     * Where the current value of a property came from.
     *
     * @param name of the property.
     * @return {@code file <name>} when a file loaded by {@link #loadPropertiesFiles(String...)} set it,
     * {@code system property} when it is set otherwise, {@code default} when it is not set.
     */
    public static String source(final String name)
    {
        if (null == System.getProperty(name))
        {
            return "default";
        }

        final String file = FILE_SOURCES.get(name);
        return null == file ? "system property" : "file " + file;
    }

    private static String describe(final String name, final Collection<String> known)
    {
        final String file = FILE_SOURCES.get(name);
        final String where = null == file ? " (a system property)" : " (in the properties file " + file + ")";
        final String nearest = nearest(name, known);
        if (null == nearest)
        {
            return name + where;
        }

        final int distance = editDistance(name, nearest);
        final int suffixLength = name.length() - PREFIX.length();
        final boolean isTruncation = nearest.startsWith(name + ".") || name.startsWith(nearest + ".");
        return name + where + (isTruncation || distance <= Math.max(3, suffixLength / 3) ?
            ": did you mean " + nearest + "?" : ": no known name is close, the nearest is " + nearest);
    }

    private static Properties read(final String name)
    {
        final Properties properties = new Properties();
        final File file = new File(name);
        try
        {
            if (file.exists())
            {
                if (!file.isFile())
                {
                    throw new ConfigurationException("properties file " + name + " is not a file");
                }
                try (InputStream in = Files.newInputStream(file.toPath()))
                {
                    properties.load(in);
                }
                return properties;
            }

            if (name.contains(":"))
            {
                try (InputStream in = new URI(name).toURL().openStream())
                {
                    properties.load(in);
                }
                return properties;
            }

            try (InputStream in = PropertyRegistry.class.getClassLoader().getResourceAsStream(name))
            {
                if (null == in)
                {
                    throw new ConfigurationException("properties file " + name + " not found (the arguments name " +
                        "properties files, URLs or class-path resources)");
                }
                properties.load(in);
            }
            return properties;
        }
        catch (final IOException | URISyntaxException | IllegalArgumentException ex)
        {
            throw new ConfigurationException("properties file " + name + " cannot be read: " + ex);
        }
    }

    private static void addNames(final Map<String, String> names, final ClassLoader classLoader)
    {
        try
        {
            for (final PropertyNames provider : ServiceLoader.load(PropertyNames.class, classLoader))
            {
                for (final String name : provider.names())
                {
                    names.putIfAbsent(name, provider.component());
                }
            }
        }
        catch (final ServiceConfigurationError ex)
        {
            throw new ConfigurationException("a provider of " + PropertyNames.class.getName() + " cannot be " +
                "loaded: " + ex.getMessage());
        }
    }
}
