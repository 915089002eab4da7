// Peer harness for benches/fbx_assimp.py: imports a file with Assimp (no post-processing
// step) and prints, per mesh, each vertex's bone weights as Assimp reports them, one line
// per vertex: "MESH<TAB>VERTEX<TAB>bone=weight<TAB>..." (bones as Assimp names them,
// weights with 9 significant digits, vertices without a weight printed bare). Built
// against Debian's libassimp-dev: g++ -O2 assimp_weights.cpp -lassimp -o assimp_weights
#include <assimp/Importer.hpp>
#include <assimp/scene.h>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: assimp_weights FILE\n");
        return 2;
    }
    Assimp::Importer importer;
    const aiScene* scene = importer.ReadFile(argv[1], 0);
    if (!scene) {
        std::fprintf(stderr, "assimp: %s\n", importer.GetErrorString());
        return 1;
    }
    for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
        const aiMesh* mesh = scene->mMeshes[m];
        std::vector<std::map<std::string, double>> rows(mesh->mNumVertices);
        for (unsigned b = 0; b < mesh->mNumBones; ++b) {
            const aiBone* bone = mesh->mBones[b];
            for (unsigned w = 0; w < bone->mNumWeights; ++w) {
                const aiVertexWeight& vw = bone->mWeights[w];
                if (vw.mVertexId < rows.size()) rows[vw.mVertexId][bone->mName.C_Str()] += vw.mWeight;
            }
        }
        for (unsigned v = 0; v < rows.size(); ++v) {
            std::printf("%u\t%u", m, v);
            for (const auto& [name, w] : rows[v]) std::printf("\t%s=%.9g", name.c_str(), w);
            std::printf("\n");
        }
    }
    return 0;
}
