package inventory;

import java.util.ArrayList;
import java.util.List;

/** Keeps items in stock. */
public class Sample {
    private static final int MAX = 100;
    private final List<String> names = new ArrayList<>();

    /** Adds an item. */
    @Override
    public String toString() {
        return "Sample" + names;
    }

    public boolean add(String name) {
        if (names.size() >= MAX) {
            return false;
        }
        return names.add(name);
    }

    interface Listener {
        void changed(String name);
    }
}
