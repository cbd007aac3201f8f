// Validates XML documents against an XML Schema with the JDK's own
// validator: java XSDValidate.java SCHEMA.xsd DOCUMENT.xml...
// Prints "DOCUMENT: valid" or "DOCUMENT:LINE:COLUMN: the first error" for
// each document, and exits 1 if any is invalid.
import java.io.File;
import javax.xml.XMLConstants;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.Schema;
import javax.xml.validation.SchemaFactory;
import org.xml.sax.SAXParseException;

public class XSDValidate {
    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: java XSDValidate.java SCHEMA.xsd DOCUMENT.xml...");
            System.exit(2);
        }
        Schema schema = SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI).newSchema(new File(args[0]));
        int status = 0;
        for (int i = 1; i < args.length; i++) {
            try {
                schema.newValidator().validate(new StreamSource(new File(args[i])));
                System.out.println(args[i] + ": valid");
            } catch (SAXParseException e) {
                System.out.println(args[i] + ":" + e.getLineNumber() + ":" + e.getColumnNumber() + ": " + e.getMessage());
                status = 1;
            }
        }
        System.exit(status);
    }
}
